#!/usr/bin/env python3
"""Shape checks of src/ that grep cannot do well (called by scripts/lint.sh).

- No function longer than FUNC_MAX lines: from the first line of its
  signature to its '}' at column 0, the style every file here is written in.
- Each third-party library is included by exactly one file of src/ (its
  wrapper), as LIB_HOMES lists; a library wrapped by one file is upgraded or
  stubbed there alone.
- The fetch phase's event loop (src/fetch/fetch.c) stays under LOOP_MAX lines.
- No file of src/ longer than FILE_MAX lines.
- Floors: each folder of src/ has a floor (FLOORS); a file includes headers
  of its own folder or of folders on lower floors only. The bottom holds
  what everything uses (util, store), the top the commands (cli); an
  include that runs up or sideways is a finding.
- No circle of files: a module is a stem (x.c with x.h); the includes
  between modules of a folder form no cycle.
- Every exported symbol starts with its module: the file's name or its
  folder's, then '_' (src/cli/ commands: cmd_), or is the file's name itself.
  Read from the objects of the last build ($B/src/, B=build), by nm.

Prints FILE:LINE: what for each finding; exits 1 if there was any.
"""
import glob, os, re, subprocess, sys

FUNC_MAX = 80
LOOP_MAX = 700
FILE_MAX = 1000
# The floors of src/'s folders, bottom first: a folder includes only its own
# headers and those of lower floors. Folders on one floor know nothing of
# each other.
FLOORS = [
    ('util',),                                   # libc-level helpers
    ('store', 'comm', 'http'),                   # record files, MPI, HTTP messages
    ('inputs',),                                 # the user's files, read once
    ('config', 'warc'),                          # keys; the WARC format
    ('url',),                                    # URLs and their rules
    ('crawldb',),                                # the crawl directory: records, layout, state
    ('seen', 'score', 'robots', 'rank', 'dedup', 'status'),
    ('scope', 'parse'),
    ('index',),                                  # CDXJ, text, WAT, WACZ
    ('fetch',),
    ('generate',),                               # asks fetch's politeness rules
    ('update',),
    ('inject',),                                 # routes seeds as update routes links
    ('round',),                                  # runs the phases
    ('cli',),
]
LIB_HOMES = {
    'curl/curl.h': ('src/fetch/http.c', 'src/http/head.c'),
    'ares.h': 'src/fetch/dns.c',
    'libxml/': ('src/parse/html.c', 'src/parse/sitemap.c'),
    'mpi.h': 'src/comm/comm.c',
    'openssl/ssl.h': 'src/fetch/tls.c',
    'openssl/x509_vfy.h': 'src/fetch/tls.c',
    'cld2/': 'src/parse/lang.cc',
    'zip.h': 'src/index/wacz.c',
    'magic.h': 'src/index/sniff.c',
    'poppler.h': 'src/parse/pdf.c',
}

findings = []


def report(where, what):
    findings.append('%s: %s' % (where, what))


def sources():
    return sorted(glob.glob('src/*/*.c') + glob.glob('src/*/*.cc') + glob.glob('src/*/*.h'))


def check_functions(path, lines):
    # A function runs from the first line of its signature (at column 0)
    # to its '}' at column 0.
    start, name, prev, head = None, '', '', 0
    for i, line in enumerate(lines, 1):
        if line.startswith('{'):
            start, name = head, prev
        elif line.startswith('}') and start is not None:
            n = i - start + 1
            if n > FUNC_MAX:
                m = re.search(r'(\w+)\s*\(', name)
                report('%s:%d' % (path, start), 'function %s is %d lines (at most %d)'
                       % (m.group(1) if m else '?', n, FUNC_MAX))
            start = None
        if re.match(r'[A-Za-z_]', line):
            if not re.match(r'[A-Za-z_]', lines[i - 2] if i > 1 else ''):
                head = i
            prev = line


def check_includes(files):
    seen = {lib: [] for lib in LIB_HOMES}
    for path, lines in files.items():
        for i, line in enumerate(lines, 1):
            m = re.match(r'\s*#\s*include\s*<([^>]+)>', line)
            if not m:
                continue
            for lib in LIB_HOMES:
                if m.group(1) == lib or (lib.endswith('/') and m.group(1).startswith(lib)):
                    seen[lib].append('%s:%d' % (path, i))
    for lib, homes in LIB_HOMES.items():
        homes = homes if isinstance(homes, tuple) else (homes,)
        for where in seen[lib]:
            if not any(where.startswith(h + ':') for h in homes):
                report(where, '<%s> outside its wrapper %s' % (lib, ' or '.join(homes)))
        for home in homes:
            if not any(w.startswith(home + ':') for w in seen[lib]):
                report(home, 'does not include <%s>, which it wraps' % lib)


def check_symbols():
    build = os.environ.get('B', 'build')
    objs = sorted(glob.glob(build + '/src/*/*.o'))
    if not objs:
        print('lint: no objects in %s/src/: symbol names not checked (run make)' % build)
        return
    for obj in objs:
        src = obj[len(build) + 1:-2] + '.c'
        if not os.path.exists(src):
            continue
        mod = os.path.basename(src)[:-2]
        folder = os.path.basename(os.path.dirname(src))
        allowed = [mod + '_', folder + '_'] + (['cmd_'] if folder == 'cli' else [])
        out = subprocess.run(['nm', '-g', '--defined-only', obj], capture_output=True,
                             text=True).stdout
        for row in out.splitlines():
            parts = row.split()
            if len(parts) < 3:
                continue
            sym = parts[2]
            if sym in (mod, 'main') or any(sym.startswith(a) for a in allowed):
                continue
            report(src, 'exported symbol %s does not start with %s' % (sym, ' or '.join(allowed)))


def check_floors(files):
    floor = {f: i for i, names in enumerate(FLOORS) for f in names}
    for folder in sorted({p.split('/')[1] for p in files}):
        if folder not in floor:
            report('src/' + folder, 'folder has no floor in FLOORS (scripts/lint_shape.py)')
    for path, lines in files.items():
        here = path.split('/')[1]
        for i, line in enumerate(lines, 1):
            m = re.match(r'\s*#\s*include\s*"([a-z_]+)/[^"]+"', line)
            if not m or m.group(1) == here or here not in floor or m.group(1) not in floor:
                continue
            if floor[m.group(1)] >= floor[here]:
                report('%s:%d' % (path, i), 'includes %s/ (floor %d) from %s/ (floor %d): '
                       'an include runs down only' % (m.group(1), floor[m.group(1)], here,
                                                      floor[here]))


def check_circles(files):
    edges = {}
    for path, lines in files.items():
        a = path[4:].rsplit('.', 1)[0]
        for line in lines:
            m = re.match(r'\s*#\s*include\s*"([a-z_]+/[^"]+)\.h"', line)
            if m and m.group(1) != a:
                edges.setdefault(a, set()).add(m.group(1))
    # Depth-first search for a back edge; each cycle reported once by its set.
    state, stack, seen = {}, [], set()

    def visit(v):
        state[v] = 1
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if state.get(w) == 1:
                cyc = stack[stack.index(w):]
                key = frozenset(cyc)
                if key not in seen:
                    seen.add(key)
                    report('src/%s' % cyc[0], 'a circle of includes: %s'
                           % ' -> '.join(cyc + [w]))
            elif w not in state:
                visit(w)
        stack.pop()
        state[v] = 2

    for v in sorted(edges):
        if v not in state:
            visit(v)


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    files = {}
    for path in sources():
        with open(path, encoding='utf-8', errors='replace') as f:
            files[path] = f.read().split('\n')
    for path, lines in files.items():
        if path.endswith('.c'):
            check_functions(path, lines)
    check_includes(files)
    check_floors(files)
    check_circles(files)
    for path, lines in files.items():
        if len(lines) - 1 > FILE_MAX:
            report(path, '%d lines (at most %d)' % (len(lines) - 1, FILE_MAX))
    loop = files.get('src/fetch/fetch.c', [])
    if len(loop) - 1 >= LOOP_MAX:
        report('src/fetch/fetch.c', '%d lines: the event loop stays under %d' % (len(loop) - 1, LOOP_MAX))
    check_symbols()
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main())
