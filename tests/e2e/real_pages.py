#!/usr/bin/env python3
"""The independent side of tests/e2e/real_pages.sh (docs/REAL_PAGES.md).

  real_pages.py links MPICRAWL DB LINKS SITES OUT
  real_pages.py cover DB NGINX_LOG SITES OUT
  real_pages.py text SITES OUT WET...

SITES is a file of NAME<TAB>ROOT<TAB>BASE lines: the tlsweb sites, the
directory each serves and its URL (https://NAME.tls.test:PORT). DB is
`mpicrawl readdb --dump`, LINKS the link graph (zstdcat of
segments/*/links/*.tsv.zst), NGINX_LOG tlsweb's access log.

links: the links of every HTML page mpicrawl fetched, extracted again from
the files nginx served (read from disk) with Python's html.parser - not
libxml2 - by the rules docs/OUTPUTS.md and src/parse/html.h give: <a> and
<area> href unless rel has nofollow, <link> href with rel alternate,
canonical or a navigation kind (next, prev, up, index...), <frame>/<iframe> src, <meta http-equiv=refresh>'s URL; none
for a page whose <meta name=robots> (or name=mpicrawl) says nofollow or none; resolved against the first <base
href> (itself resolved against the page's URL) or the page's URL. The
resolution and the canonical form are mpicrawl's own (`mpicrawl url --stdin
--hex`), so that what is compared is the extraction. Agreement is
|intersection| / |union| of the (source, target) pairs, per page and
overall; every difference is put in a class (UNCLASSIFIED when none fits).
Prints the figures and the classes, writes OUT/links.txt (every difference)
and exits 0, or 1 when the overall agreement is under 99.5 % or the link
graph has a source that is no fetched HTML page.

cover: the HTML pages (files served as text/html) that each client fetched:
mpicrawl's by its CrawlDb (fetched or duplicate: a page that timed out is
missing even if nginx sent it), wget2's by nginx's log (GET answered 200);
each page fetched by one only is explained from how the pages link to it
(OUT/written.tsv, written by links). Exits 1 when wget2 fetched a page
mpicrawl did not.
"""
import codecs
import collections
import html.entities
import html.parser
import json
import multiprocessing
import os
import re
import subprocess
import sys
import urllib.parse

AGREEMENT_MIN = 99.5
TEXT_LINES_MIN = 99.5
TEXT_FOREIGN_MAX = 0.5   # % of html.parser's lines: WET words that are no word of the page
AGENT = 'mpicrawl'
NON_ASCII = re.compile(rb'[\x80-\xff]')
NON_ASCII_STR = re.compile('[^\x00-\x7f]')
BLANK_STR = re.compile('[\x00-\x20]')
HTML_EXT = ('.html', '.htm')


# ---- the sites: URL <-> file, as nginx maps them ----

def read_sites(path):
    sites = {}
    for line in open(path):
        name, root, base = line.rstrip('\n').split('\t')
        host = urllib.parse.urlsplit(base).netloc
        sites[host] = (name, root, base)
    return sites


def url_file(sites, url):
    """The file nginx serves for url (path percent-decoded, a directory's
    index.html), or None for another host."""
    u = urllib.parse.urlsplit(url)
    if u.netloc not in sites:
        return None
    root = sites[u.netloc][1]
    path = urllib.parse.unquote(u.path)
    f = os.path.normpath(root + path)
    if os.path.isdir(f):
        f = os.path.join(f, 'index.html')
    return f


def is_html_file(f):
    return f is not None and f.lower().endswith(HTML_EXT) and os.path.isfile(f)


# ---- the encoding of a page: BOM, then the <meta> prescan (WHATWG) ----

# WHATWG encoding labels this corpus can meet, as Python codecs.
LABELS = {
    'utf-8': 'utf-8', 'utf8': 'utf-8', 'unicode-1-1-utf-8': 'utf-8',
    'iso-8859-1': 'cp1252', 'iso8859-1': 'cp1252', 'latin1': 'cp1252',
    'us-ascii': 'cp1252', 'ascii': 'cp1252', 'windows-1252': 'cp1252',
    'iso-8859-15': 'iso8859-15', 'iso-2022-jp': 'iso2022_jp', 'euc-jp': 'euc_jp',
    'shift_jis': 'shift_jis', 'utf-16': 'utf-8', 'utf-16le': 'utf-8', 'utf-16be': 'utf-8',
}
META_CHARSET = re.compile(
    rb'<meta\b[^>]*?charset\s*=\s*["\']?\s*([A-Za-z0-9._:-]+)', re.I)


def sniff(data):
    if data.startswith(b'\xef\xbb\xbf'):
        return 'utf-8-sig'
    if data[:2] in (b'\xff\xfe', b'\xfe\xff'):
        return 'utf-16'
    for m in META_CHARSET.finditer(data[:1024]):
        enc = LABELS.get(m.group(1).decode('ascii').lower())
        if enc:
            return enc
    return 'cp1252'


# ---- the extractor ----

def tokens(v):
    return set((v or '').lower().split())


ENTITIES = html.entities.html5
CHARREF = re.compile(r'&(#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[A-Za-z][A-Za-z0-9]*;?)')


def attr_unescape(v):
    """An attribute value's character references decoded as the HTML
    standard does in attributes: html.unescape's rules, except that a named
    reference without its ';' followed by '=' or a letter or digit stays as
    written ("?a=1&copy=2" keeps "&copy=2", where html.unescape gives
    "\u00a9=2")."""
    def one(m):
        ref = m.group(1)
        if ref[0] == '#':
            return html.unescape(m.group(0))
        for n in range(len(ref), 0, -1):
            if ref[:n] in ENTITIES:
                break
        else:
            return m.group(0)
        name = ref[:n]
        nxt = ref[n:n + 1] or v[m.end():m.end() + 1]
        if not name.endswith(';') and (nxt == '=' or nxt.isascii() and nxt.isalnum()):
            return m.group(0)
        return ENTITIES[name] + ref[n:]
    return CHARREF.sub(one, v)


LINK_TAGS = frozenset(('a', 'area', 'link', 'frame', 'iframe', 'base', 'meta'))
# <link rel> kinds that name another page: alternate, canonical and HTML 4's
# navigation types
PAGE_RELS = frozenset('alternate canonical next prev previous first last start up contents '
                      'toc index chapter section subsection appendix glossary'.split())


class Links(html.parser.HTMLParser):
    """Raw links of one page: (element, href, context) in document order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.raw = []
        self.base = None
        self.nofollow = False
        self.nofollowed = 0
        self.template = 0
        self.svg = 0
        self.ended = False      # after </html>

    def raw_attrs(self):
        """The tag's attributes as html.parser splits them, the values
        neither unquoted nor decoded (html.parser decodes them with
        html.unescape, which is not the attribute rule)."""
        text = self.get_starttag_text() or ''
        m = html.parser.tagfind_tolerant.match(text, 1)
        k = m.end() if m else len(text)
        out = []
        while k < len(text):
            m = html.parser.attrfind_tolerant.match(text, k)
            if not m:
                break
            name, rest, value = m.group(1, 2, 3)
            if not rest:
                value = None
            elif value[:1] == "'" == value[-1:] or value[:1] == '"' == value[-1:]:
                value = value[1:-1]
            out.append((name.lower(), value))
            k = m.end()
        return out

    def handle_starttag(self, tag, attrs):
        ctx = 'template' if self.template else 'svg' if self.svg else \
            'after </html>' if self.ended else ''
        if tag == 'template':
            self.template += 1
        elif tag == 'svg':
            self.svg += 1
        if tag not in LINK_TAGS:
            return
        a, w = {}, {}
        for k, v in self.raw_attrs():   # the first of repeated attributes counts
            if k not in a:
                a[k] = attr_unescape(v) if v else ''
                w[k] = v or ''
        if tag in ('a', 'area') and 'href' in a:
            if 'nofollow' in tokens(a.get('rel')):
                self.nofollowed += 1
            else:
                self.raw.append((tag, a['href'], ctx, w['href']))
        elif tag == 'link' and 'href' in a and tokens(a.get('rel')) & PAGE_RELS:
            self.raw.append((tag, a['href'], ctx, w['href']))
        elif tag in ('frame', 'iframe') and 'src' in a:
            self.raw.append((tag, a['src'], ctx, w['src']))
        elif tag == 'base' and 'href' in a and self.base is None and not self.template:
            self.base = a['href']
        elif tag == 'meta' and a.get('name', '').lower() in ('robots', AGENT):
            c = set(re.split(r'[\s,]+', a.get('content', '').lower()))
            if c & {'nofollow', 'none'}:
                self.nofollow = True
        elif tag == 'meta' and a.get('http-equiv', '').lower() == 'refresh':
            # the HTML standard's declarative refresh: time, [;,] [url=] URL
            m = re.match(r'[ \t\n\r\f]*[0-9.]+(?=[;, \t\n\r\f]|$)[ \t\n\r\f]*[;,]?'
                         r'[ \t\n\r\f]*(?:url[ \t\n\r\f]*=[ \t\n\r\f]*)?(.*)',
                         a.get('content', ''), re.I | re.S)
            u = m.group(1) if m else ''
            if u[:1] in ('"', "'"):
                u = u[1:].split(u[0], 1)[0]
            else:
                u = u.rstrip(' \t\n\r\f')
            if u:
                self.raw.append((tag, u, ctx, u))

    def handle_endtag(self, tag):
        if tag == 'html':
            self.ended = True
        elif tag == 'template' and self.template:
            self.template -= 1
        elif tag == 'svg' and self.svg:
            self.svg -= 1


def hexs(s):
    return s.encode('utf-8', 'surrogatepass').hex()


def mpicrawl_url(mpicrawl, pairs, resolve_only=False, why=None):
    """`mpicrawl url --stdin --hex` over (base, href) pairs: one answer each
    (None for invalid; the reasons counted in why)."""
    if not pairs:
        return []
    args = [mpicrawl, 'url', '--stdin', '--hex'] + (['--resolve-only'] if resolve_only else [])
    inp = ''.join('%s\t%s\n' % (hexs(b), hexs(h)) for b, h in pairs)
    out = subprocess.run(args, input=inp.encode(), stdout=subprocess.PIPE, check=True)
    lines = out.stdout.decode('utf-8', 'replace').split('\n')[:-1]
    assert len(lines) == len(pairs), (len(lines), len(pairs))
    if why is not None:
        why.update(l[8:] for l in lines if l.startswith('invalid\t'))
    return [None if l.startswith('invalid\t') else l for l in lines]


def fetched_pages(db, sites):
    pages = {}
    for line in open(db):
        r = json.loads(line)
        if r['status'] not in ('fetched', 'duplicate'):
            continue
        f = url_file(sites, r['url'])
        if is_html_file(f):
            pages[r['url']] = f
    return pages


def parse_page(item):
    """One page's Links (the parser's buffers dropped) and what it met."""
    url, f = item
    data = open(f, 'rb').read()
    p = Links()
    enc = sniff(data)
    p.feed(data.decode(enc, 'replace'))
    p.close()
    p.reset()
    p.rawdata = ''
    stats = collections.Counter()
    stats['page encoding ' + enc] += 1
    stats['pages with bytes over 127'] += bool(NON_ASCII.search(data))
    stats['rel=nofollow links'] += p.nofollowed
    for tag, href, ctx, _ in p.raw:
        stats['raw links <%s>' % tag] += 1
        stats['raw hrefs with non-ASCII'] += bool(NON_ASCII_STR.search(href))
        stats['raw hrefs with blanks or controls'] += bool(BLANK_STR.search(href))
        if ctx:
            stats['raw links ' + ctx] += 1
    return url, p, stats


def extract(mpicrawl, pages, stats):
    """Per page URL: {canonical target: [(element, href, context)]}, and the
    pages whose meta robots says nofollow; what was met, counted in stats.
    html.parser is most of the test's time: the pages are parsed by two
    processes (the machine's two cores)."""
    parsed, nofollow_pages = {}, set()
    with multiprocessing.Pool(2) as pool:
        for url, p, st in pool.imap_unordered(parse_page, sorted(pages.items()), 64):
            parsed[url] = p
            stats.update(st)
            if p.nofollow:
                nofollow_pages.add(url)
    with_base = [u for u, p in parsed.items() if p.base is not None]
    bases = dict(zip(with_base, mpicrawl_url(
        mpicrawl, [(u, parsed[u].base) for u in with_base], resolve_only=True)))
    pairs, owners = [], []
    for url, p in parsed.items():
        if p.nofollow:
            continue
        base = bases.get(url) or url
        for raw in p.raw:
            pairs.append((base, raw[1]))
            owners.append((url, raw))
    links = collections.defaultdict(lambda: collections.defaultdict(list))
    inert = collections.defaultdict(lambda: collections.defaultdict(list))
    why = collections.Counter()
    for (url, raw), target in zip(owners, mpicrawl_url(mpicrawl, pairs, why=why)):
        if target is not None:
            # <template> content is inert (no link in a browser): kept
            # aside, to name a difference.
            (inert if raw[2] == 'template' else links)[url][target].append(raw)
    for w, n in why.items():
        stats['raw links invalid: ' + w] += n
    return parsed, links, inert, nofollow_pages, bases


# ---- the classes of differences ----

def classify(side, raws):
    """The class of one pair found by one side only, from the raw links
    that give it on the page (Python's, or for mpicrawl's the inert ones
    Python left out); None when unknown."""
    ctxs = {r[2] for r in raws}
    if side == 'python':
        if ctxs == {'after </html>'}:
            return 'python only: after </html> (libxml2\'s push parser stopped there)'
        if ctxs == {'svg'}:
            return 'python only: SVG <a> inside inline <svg>'
        return None
    if ctxs == {'template'}:
        return 'mpicrawl only: inside <template> (inert content: no link in a browser)'
    return None


def cmd_links(mpicrawl, db, links_tsv, sites_file, out):
    sites = read_sites(sites_file)
    pages = fetched_pages(db, sites)
    stats = collections.Counter()
    parsed, py, inert, nofollow_pages, bases = extract(mpicrawl, pages, stats)
    mp = collections.defaultdict(set)
    for line in open(links_tsv, encoding='utf-8', errors='replace'):
        f = line.rstrip('\n').split('\t')
        if len(f) >= 2:
            mp[f[0]].add(f[1])
    sources = set(mp) - set(pages)
    # PDFs' links (their URI annotations) join the graph too: their own test
    # is tests/e2e/pdf.sh; here they are counted, not compared.
    documents = {u for u in sources if not is_html_file(url_file(sites, u))}
    sources -= documents
    inter = union = 0
    per_page = []
    classes = collections.Counter()
    examples = collections.defaultdict(list)
    unknown = []
    with open(os.path.join(out, 'links.txt'), 'w') as dump:
        for url in sorted(pages):
            a, b = set(py.get(url, {})), mp.get(url, set())
            i, u = len(a & b), len(a | b)
            inter += i
            union += u
            per_page.append((100.0 * i / u if u else 100.0, url))
            for side, only in (('python', a - b), ('mpicrawl', b - a)):
                for dst in sorted(only):
                    raws = (py if side == 'python' else inert)[url].get(dst, [])
                    c = classify(side, raws)
                    dump.write('%s only\t%s\t%s\t%s\t%s\n' % (side, url, dst, c, raws[:3]))
                    if c is None:
                        c = '%s only: UNCLASSIFIED' % side
                        unknown.append((url, dst, raws[:2]))
                    classes[c] += 1
                    if len(examples[c]) < 3:
                        examples[c].append('%s -> %s %s' % (url, dst, raws[:1] or ''))
    # How each target is written on the first page that links to it, for
    # cover's explanations.
    with open(os.path.join(out, 'written.tsv'), 'w') as w:
        done = set()
        for url in sorted(py):
            for dst, raws in py[url].items():
                if dst not in done:
                    done.add(dst)
                    w.write('%s\t%s\t%s\n' % (dst, url, raws[0][3].replace('\t', ' ')))
    overall = 100.0 * inter / union if union else 100.0
    per_page.sort()
    below = [p for p in per_page if p[0] < AGREEMENT_MIN]
    nraw = sum(len(p.raw) for p in parsed.values())
    print('links: %d HTML pages fetched by mpicrawl on %d hosts (%d with <base href>, %d '
          'meta nofollow); python found %d raw links, %d (source, target) pairs; mpicrawl\'s '
          'link graph %d pairs' % (len(pages), len({urllib.parse.urlsplit(u).netloc for u in pages}),
                                   len(bases), len(nofollow_pages), nraw,
                                   sum(len(v) for v in py.values()),
                                   sum(len(v) for v in mp.values())))
    print('links: agreement %.3f %% overall (%d in both of %d in either); per page: %d of %d '
          'at 100 %%, %d under %.1f %%, the lowest %.2f %% (%s)'
          % (overall, inter, union, sum(1 for p in per_page if p[0] == 100.0), len(per_page),
             len(below), AGREEMENT_MIN, per_page[0][0] if per_page else 100.0,
             per_page[0][1] if per_page else '-'))
    print('links: met on the way: %s' % ', '.join('%s %d' % kv for kv in sorted(stats.items())))
    if documents:
        print('links: %d sources in the link graph are documents (PDFs), not compared: %s'
              % (len(documents), sorted(documents)[:2]))
    if sources:
        print('links: %d sources in the link graph are no fetched HTML page, e.g. %s'
              % (len(sources), sorted(sources)[:2]))
    for c, n in classes.most_common():
        print('  difference: %5d  %s' % (n, c))
        for e in examples[c]:
            print('                 e.g. %s' % e[:300])
    # An unclassified difference is listed (and in OUT/links.txt), not a
    # failure: the assertion is the agreement.
    ok = overall >= AGREEMENT_MIN and not sources
    print('links: %s' % ('ok' if ok else 'NOT OK: agreement under %.1f %% or sources that '
                         'are no fetched page' % AGREEMENT_MIN))
    return 0 if ok else 1


# ---- coverage: the HTML pages each client fetched, by nginx's log ----

def cover_class(side, page_urls, written, status):
    """Why a page was fetched by one client only, from how the pages that
    link to it write the link: (class, detail), the class None when nothing
    explains it."""
    failed = ['%s %s' % status[u] for u in page_urls if u in status]
    if side == 'wget2' and failed:
        return "wget2 only: mpicrawl's fetch of it failed", failed[0]
    spellings = [written[u] for u in page_urls if u in written]
    detail = 'linked as %s by %s' % (spellings[0][1], spellings[0][0]) if spellings else ''
    if side == 'mpicrawl' and spellings and all('&#' in h for _, h in spellings):
        return ("mpicrawl only: the link has a character reference (&#45;), which wget2 does "
                "not decode: it reads the '#' as a fragment and asks for what precedes it",
                detail)
    return None, detail


def cmd_cover(db, log, sites_file, out):
    sites = read_sites(sites_file)
    got = collections.defaultdict(set)
    urls = collections.defaultdict(set)
    by_file = collections.defaultdict(set)
    for line in open(log, encoding='utf-8', errors='replace'):
        f = line.rstrip('\n').split('\t')
        if len(f) != 22 or f[14] != '200' or f[12] != 'GET':
            continue
        agent = f[18]
        if not agent.lower().startswith('wget'):
            continue
        url = 'https://%s:%s%s' % (f[4], f[3], f[13])
        file = url_file(sites, url.split('?', 1)[0])
        if is_html_file(file):
            got['wget2'].add(file)
            urls['wget2'].add(url)
            by_file[file].add(url)
    status = {}
    for line in open(db):
        r = json.loads(line)
        if r['status'] not in ('fetched', 'duplicate'):
            status[r['url']] = (r['status'], r.get('reason') or r.get('http_status'))
    for url, file in fetched_pages(db, sites).items():
        got['mpicrawl'].add(file)
        urls['mpicrawl'].add(url)
        by_file[file].add(url)
    written = {}
    wpath = os.path.join(out, 'written.tsv')
    if os.path.exists(wpath):
        for line in open(wpath, encoding='utf-8', errors='replace'):
            dst, src, how = (line.rstrip('\n').split('\t') + ['', ''])[:3]
            written[dst] = (src, how)
    w, m = got['wget2'], got['mpicrawl']
    print('coverage: wget2 fetched %d HTML pages (%d URLs), mpicrawl %d (%d URLs); %d by both, '
          '%d by wget2 only, %d by mpicrawl only'
          % (len(w), len(urls['wget2']), len(m), len(urls['mpicrawl']), len(w & m),
             len(w - m), len(m - w)))
    classes = collections.Counter()
    with open(os.path.join(out, 'cover.txt'), 'w') as dump:
        for side, only in (('wget2', w - m), ('mpicrawl', m - w)):
            for f in sorted(only):
                c, detail = cover_class(side, by_file[f], written, status)
                c = c or '%s only: UNEXPLAINED' % side
                dump.write('%s\t%s\t%s\n' % (f, c, detail))
                classes[c] += 1
                if len(only) <= 20 or c.endswith('UNEXPLAINED'):
                    print('  %s only: %s (%s)' % (side, f, detail or 'no page links to it'))
    for c, n in classes.most_common():
        print('  difference: %5d  %s' % (n, c))
    return 0 if w and not (w - m) else 1


# ---- the text's lines ----

# The layout of src/parse/html.c's table, written again: a block starts and
# ends a line, br/hr end one, a gap separates words, pre keeps line ends.
BLOCK = set('address article aside blockquote body caption center dd details dialog dir div '
            'dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 '
            'header hgroup html legend li main menu nav ol optgroup option p section summary '
            'table tbody tfoot thead tr ul'.split())
BREAK = {'br', 'hr'}
GAP = set('audio button canvas embed iframe img input meter object progress select td th '
          'video'.split())
PRE = {'pre', 'listing', 'textarea', 'xmp'}
SKIP = {'script', 'style', 'noscript', 'template'}
BLANKS = ' \t\n\r\f\v\xa0'


class Lines(html.parser.HTMLParser):
    """The visible text of a page as lines, by the rules above."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines, self.cur = [], ''
        self.space = self.brk = False
        self.skip = self.pre = 0
        self.title = False

    def edge(self, tag, start):
        if tag in PRE:
            self.pre += 1 if start else (-1 if self.pre else 0)
            self.brk = True
        elif tag in BLOCK:
            self.brk = True
        elif tag in BREAK:
            self.brk = self.brk or start
        elif tag in GAP:
            self.space = True

    def handle_starttag(self, tag, attrs):
        self.edge(tag, True)
        if tag in SKIP:
            self.skip += 1
        elif tag == 'title':
            self.title = True

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in BREAK:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        self.edge(tag, False)
        if tag in SKIP and self.skip:
            self.skip -= 1
        elif tag == 'title':
            self.title = False

    def handle_data(self, data):
        """Character by character: text nodes that meet without a blank (at
        an inline tag) join, as on screen."""
        if self.skip or self.title:
            return
        for c in data:
            if c in BLANKS:
                if self.pre and c == '\n':
                    self.brk = True
                else:
                    self.space = True
                continue
            if self.brk and self.cur:
                self.lines.append(self.cur)
                self.cur = ''
            elif self.space and self.cur:
                self.cur += ' '
            self.cur += c
            self.space = self.brk = False

    def done(self):
        if self.cur:
            self.lines.append(self.cur)
        return self.lines


def wet_records(paths):
    import gzip
    for path in paths:
        data = gzip.open(path).read()
        i = 0
        while i < len(data):
            he = data.index(b'\r\n\r\n', i)
            head = data[i:he].decode('utf-8', 'replace').split('\r\n')
            f = {k.strip().lower(): v.strip() for k, _, v in (h.partition(':') for h in head[1:])}
            n = int(f['content-length'])
            if f.get('warc-type') == 'conversion':
                yield f['warc-target-uri'], data[he + 4:he + 4 + n]
            i = he + 4 + n + 4


def page_lines(item):
    url, f = item
    data = open(f, 'rb').read()
    p = Lines()
    p.feed(data.decode(sniff(data), 'replace'))
    p.close()
    return url, p.done()


def cmd_text(sites_file, out, *wets):
    """The WET's lines of every real page against Lines' on the served file:
    the share of Lines' lines the WET has whole, words of the WET that are
    no word of Lines' text (glued), records that are not UTF-8 text."""
    sites = read_sites(sites_file)
    wet, binary = {}, 0
    for url, block in wet_records(wets):
        try:
            text = block.decode('utf-8')
        except UnicodeDecodeError:
            binary += 1
            continue
        binary += any(ord(c) < 32 and c != '\n' for c in text)
        f = url_file(sites, url)
        if is_html_file(f):
            wet[url] = (f, text.split('\n')[1:])
    with multiprocessing.Pool(2) as pool:
        want = dict(pool.imap_unordered(page_lines, sorted((u, v[0]) for u, v in wet.items()),
                                        64))
    expected = present = glued = 0
    diffs = []
    for url in sorted(wet):
        got = collections.Counter(wet[url][1])
        words = set(w for line in want[url] for w in line.split(' '))
        for line in want[url]:
            expected += 1
            if got[line] > 0:
                got[line] -= 1
                present += 1
            else:
                diffs.append('%s\tmissing\t%s' % (url, line[:200]))
        for w in (w for line in wet[url][1] for w in line.split(' ')):
            if w and w not in words:
                glued += 1
                diffs.append('%s\tnot a word of the page\t%s' % (url, w[:200]))
    with open(os.path.join(out, 'text.txt'), 'w') as fp:
        fp.write('\n'.join(diffs) + '\n')
    share = 100.0 * present / max(expected, 1)
    print('text: %d pages, %d lines by html.parser, %d of them whole in the WET (%.2f %%), '
          '%d WET words no word of the page, %d records not UTF-8 text'
          % (len(wet), expected, present, share, glued, binary))
    return 0 if len(wet) > 1000 and share >= TEXT_LINES_MIN and binary == 0 and \
        glued <= TEXT_FOREIGN_MAX / 100 * max(expected, 1) else 1


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'text':
        sys.exit(cmd_text(*sys.argv[2:]))
    if len(sys.argv) == 7 and sys.argv[1] == 'links':
        sys.exit(cmd_links(*sys.argv[2:]))
    if len(sys.argv) == 6 and sys.argv[1] == 'cover':
        sys.exit(cmd_cover(*sys.argv[2:]))
    sys.exit(__doc__)


if __name__ == '__main__':
    main()
