#!/usr/bin/env python3
"""Shape checks of src/ that grep cannot do well (called by scripts/lint.sh).

- No function longer than FUNC_MAX lines: a body runs from '{' at column 0
  to '}' at column 0, the style every file here is written in.
- Each third-party library is included by exactly one file of src/ (its
  wrapper), as LIB_HOMES lists; a library wrapped by one file is upgraded or
  stubbed there alone.
- The fetch phase's event loop (src/fetch/fetch.c) stays under LOOP_MAX lines.
- Every exported symbol starts with its module: the file's name or its
  folder's, then '_' (src/cli/ commands: cmd_), or is the file's name itself.
  Read from the objects of the last build ($B/src/, B=build), by nm.

Prints FILE:LINE: what for each finding; exits 1 if there was any.
"""
import glob, os, re, subprocess, sys

FUNC_MAX = 100
LOOP_MAX = 700
LIB_HOMES = {
    'curl/curl.h': 'src/fetch/http.c',
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
    start, name, prev = None, '', ''
    for i, line in enumerate(lines, 1):
        if line.startswith('{'):
            start, name = i, prev
        elif line.startswith('}') and start is not None:
            n = i - start + 1
            if n > FUNC_MAX:
                m = re.search(r'(\w+)\s*\(', name)
                report('%s:%d' % (path, start), 'function %s is %d lines (at most %d)'
                       % (m.group(1) if m else '?', n, FUNC_MAX))
            start = None
        if re.match(r'[A-Za-z_]', line):
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
    loop = files.get('src/fetch/fetch.c', [])
    if len(loop) - 1 >= LOOP_MAX:
        report('src/fetch/fetch.c', '%d lines: the event loop stays under %d' % (len(loop) - 1, LOOP_MAX))
    check_symbols()
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == '__main__':
    sys.exit(main())
