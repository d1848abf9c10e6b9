"""The links of a crawl's WAT files against its link graph (tests/e2e/outputs.sh).

    python3 wat_links.py MPICRAWL WAT_LINES LINK_TSV

WAT_LINES: what `node check.mjs --wat` printed (URI, base, links as JSON);
LINK_TSV: the segment's link graph, source TAB target TAB anchor. For every
page of the link graph, the links a crawler follows are taken from its WAT
record as written (a/area href, frame/iframe src, link href with rel
alternate, canonical or a navigation kind, a refresh meta's URL; not
rel=nofollow), resolved against the page's base
and made canonical by `mpicrawl url --stdin`, and compared as sets with the
page's targets in the link graph. Prints the count; exits 1 on any difference.
"""
import json
import re
import subprocess
import sys
import urllib.parse

FOLLOWED = {"A@/href", "AREA@/href", "FRAME@/src", "IFRAME@/src"}
# <link rel> kinds that name another page (html.c's page_rel)
PAGE_RELS = set("alternate canonical next prev previous first last start up contents toc "
                "index chapter section subsection appendix glossary".split())


def tokens(rel):
    return set(rel.lower().replace(",", " ").split())


def refresh_url(content):
    """The URL of a refresh meta's content (the HTML standard's
    declarative refresh: time, [;,] [url=] URL), or None."""
    m = re.match(r'[ \t\n\r\f]*[0-9.]+(?=[;, \t\n\r\f]|$)[ \t\n\r\f]*[;,]?'
                 r'[ \t\n\r\f]*(?:url[ \t\n\r\f]*=[ \t\n\r\f]*)?(.*)', content,
                 re.I | re.S)
    u = m.group(1) if m else ""
    u = u[1:].split(u[0], 1)[0] if u[:1] in ("'", '"') else u.rstrip(" \t\n\r\f")
    return u or None


def followed(links):
    out = []
    for path, url, rel in links:
        t = tokens(rel)
        if path in FOLLOWED and "nofollow" not in t:
            out.append(url)
        elif path == "LINK@/href" and t & PAGE_RELS:
            out.append(url)
        elif path == "META@/content" and refresh_url(url):
            out.append(refresh_url(url))
    return out


def canon(mpicrawl, pairs, resolve_only=False):
    """Each (base, href) made canonical (or resolved), None if invalid."""
    if not pairs:
        return []
    text = "".join("%s\t%s\n" % (b, h.replace("\t", " ").replace("\n", " "))
                   for b, h in pairs)
    args = [mpicrawl, "url", "--stdin"] + (["--resolve-only"] if resolve_only else [])
    got = subprocess.run(args, input=text.encode(), capture_output=True, check=True)
    lines = got.stdout.decode().split("\n")[:len(pairs)]
    return [None if l.startswith("invalid\t") else l for l in lines]


def is_pdf(url):
    """A source named as a PDF (its path ends in .pdf)."""
    return urllib.parse.urlsplit(url).path.lower().endswith(".pdf")


def main():
    mpicrawl, wat_lines, link_tsv = sys.argv[1:4]
    graph = {}
    with open(link_tsv, encoding="utf-8", errors="replace") as f:
        for line in f:
            src, dst = line.rstrip("\n").split("\t")[:2]
            graph.setdefault(src, set()).add(dst)
    pages = {}
    with open(wat_lines, encoding="utf-8") as f:
        for line in f:
            uri, base, links = line.rstrip("\n").split("\t", 2)
            pages[uri] = (base, json.loads(links))
    sources = [u for u in graph if u in pages]
    bases = canon(mpicrawl, [(u, pages[u][0] if pages[u][0] != "-" else u)
                             for u in sources], resolve_only=True)
    pairs, owner = [], []
    for u, b in zip(sources, bases):
        for href in followed(pages[u][1]):
            pairs.append((b or u, href))
            owner.append(u)
    got = {u: set() for u in sources}
    for u, c in zip(owner, canon(mpicrawl, pairs)):
        if c:
            got[u].add(c)
    bad = [u for u in sources if got[u] != graph[u]]
    # A PDF's links (URI annotations) are in the graph, its WAT record has
    # PDF-Metadata, not HTML-Metadata: tests/e2e/pdf.sh checks those.
    documents = [u for u in graph if u not in pages and is_pdf(u)]
    missing = [u for u in graph if u not in pages and not is_pdf(u)]
    for u in bad[:5]:
        print("differs: %s\n  WAT only: %s\n  graph only: %s" %
              (u, sorted(got[u] - graph[u])[:5], sorted(graph[u] - got[u])[:5]))
    for u in missing[:5]:
        print("no WAT record with HTML metadata: %s" % u)
    print("wat links: %d pages of the link graph, %d edges, %d differ, %d without a WAT record"
          "%s" % (len(sources), sum(len(graph[u]) for u in sources), len(bad), len(missing),
                  ", %d PDFs not compared" % len(documents) if documents else ""))
    sys.exit(1 if bad or missing or not sources else 0)


main()
