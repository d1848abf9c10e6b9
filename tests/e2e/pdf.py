#!/usr/bin/env python3
"""Helpers of tests/e2e/pdf.sh.

  pdf.py make DIR BASE PDF  writes DIR/links.pdf (a PDF whose link
                            annotations point at BASE/target1.html and, as
                            a relative URI, docs/target2.html) and the
                            hostile PDFs DIR/hostile/*.pdf (truncated.pdf: PDF cut)
  pdf.py wet WETFILE...     the conversion records as JSON lines: url,
                            language, text
  pdf.py words REF TEXT     the share of REF's words (pdftotext's output)
                            that TEXT has, as a multiset: "0.9987 N M"
"""
import collections
import gzip
import json
import os
import sys
import zlib


def write_pdf(objs, info=None):
    """A PDF of the object bodies objs (object i+1 is objs[i]), object 1
    the catalog, with a cross-reference table."""
    out = bytearray(b'%PDF-1.4\n%\xe2\xe3\xcf\xd3\n')
    offs = []
    for i, o in enumerate(objs, 1):
        offs.append(len(out))
        out += b'%d 0 obj\n' % i + o + b'\nendobj\n'
    xref = len(out)
    out += b'xref\n0 %d\n0000000000 65535 f \n' % (len(objs) + 1)
    for o in offs:
        out += b'%010d 00000 n \n' % o
    out += b'trailer\n<< /Size %d /Root 1 0 R' % (len(objs) + 1)
    if info:
        out += b' /Info %d 0 R' % info
    out += b' >>\nstartxref\n%d\n%%%%EOF\n' % xref
    return bytes(out)


def stream(data, flate=False):
    d = zlib.compress(data, 9) if flate else data
    head = b'<< /Length %d%s >>' % (len(d), b' /Filter /FlateDecode' if flate else b'')
    return head + b'\nstream\n' + d + b'\nendstream'


def page_doc(contents, annots=b'', extra=b'', title=b'A test PDF'):
    """One page with font F1, the content stream object contents."""
    return write_pdf([
        b'<< /Type /Catalog /Pages 2 0 R >>',
        b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R '
        b'/Resources << /Font << /F1 5 0 R >> >> /Annots [' + annots + b'] ' + extra + b'>>',
        contents,
        b'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
        b'<< /Title (' + title + b') /Author (mpicrawl tests) /Producer (tests/e2e/pdf.py) >>',
    ], info=6)


def text_ops(lines):
    ops = b'BT /F1 12 Tf 72 720 Td 14 TL\n'
    for l in lines:
        ops += b'(' + l + b') Tj T*\n'
    return ops + b'ET\n'


def big_flate(chunk, total):
    """A FlateDecode stream of chunk repeated to total bytes, compressed
    without holding it whole."""
    c = zlib.compressobj(9)
    parts, n = [], 0
    block = chunk * (1048576 // len(chunk))
    while n < total:
        parts.append(c.compress(block))
        n += len(block)
    parts.append(c.flush())
    d = b''.join(parts)
    return b'<< /Length %d /Filter /FlateDecode >>\nstream\n' % len(d) + d + b'\nendstream'


def annot(x, uri):
    return (b'<< /Type /Annot /Subtype /Link /Rect [72 %d 400 %d] /Border [0 0 0] '
            b'/A << /S /URI /URI (%s) >> >>' % (x, x + 14, uri))


def make(d, base):
    os.makedirs(d + '/hostile', exist_ok=True)
    lines = [b'Links of the test to its targets, one absolute and one relative.',
             b'Target one, absolute', b'Target two, relative',
             b'The first target is named target one, the second lives in docs.']
    # each annotation's rectangle over its line (baselines 706 and 692)
    a = (b' ' + annot(703, base.encode() + b'/target1.html') + b' ' +
         annot(689, b'docs/target2.html') + b' ')
    # one page, text and two link annotations over two of its lines
    links = page_doc(stream(text_ops(lines)), annots=a, title=b'Links of the test')
    open(d + '/links.pdf', 'wb').write(links)
    # the same served as application/octet-stream: found by its signature
    open(d + '/sniffed.bin', 'wb').write(page_doc(stream(text_ops(
        [b'A PDF served without its type, recognised by its signature.'])),
        title=b'Sniffed'))
    h = d + '/hostile/'
    # a corrupt cross-reference table: every offset wrong
    x = links.rindex(b'xref\n')
    bad = bytearray(links)
    for i in range(x, len(bad)):
        if bad[i:i + 1].isdigit() and bad[i - 1:i] not in (b' ',) and i > x + 12:
            bad[i:i + 1] = b'7'
    open(h + 'badxref.pdf', 'wb').write(bytes(bad))
    # nested arrays deeper than any parser should follow
    depth = 200000
    open(h + 'nested.pdf', 'wb').write(page_doc(
        stream(text_ops([b'Nested.'])), extra=b'/Nest ' + b'[' * depth + b']' * depth + b' '))
    # a decompression bomb: 1 GiB of zeros in 1 MiB, the page's contents
    open(h + 'bomb.pdf', 'wb').write(page_doc(big_flate(b'\0', 1 << 30)))
    # an endless content stream: path operators, 512 MiB of them
    open(h + 'endless.pdf', 'wb').write(page_doc(big_flate(b'1 1 m 2 2 l S q Q\n', 1 << 29)))
    # a string of 320 MiB in the page's text: poppler's lexer grows it past
    # the worker's address space (512 MiB and 8 x parse.pdf_max_bytes)
    co = zlib.compressobj(9)
    parts = [co.compress(b'BT /F1 12 Tf 72 700 Td (')]
    block = b'a' * 1048576
    parts += [co.compress(block) for _ in range(320)]
    parts += [co.compress(b') Tj ET\n'), co.flush()]
    d = b''.join(parts)
    open(h + 'memory.pdf', 'wb').write(page_doc(
        b'<< /Length %d /Filter /FlateDecode >>\nstream\n' % len(d) + d + b'\nendstream'))
    # not a PDF but for its signature
    open(h + 'garbage.pdf', 'wb').write(b'%PDF-1.7\n' + os.urandom(65536))
    # cut in half
    whole = open(sys.argv[4], 'rb').read() if len(sys.argv) > 4 else links
    open(h + 'truncated.pdf', 'wb').write(whole[:len(whole) // 2])


def wet(files):
    for f in files:
        data = gzip.open(f, 'rb').read()
        for rec in data.split(b'WARC/1.1\r\n')[1:]:
            head, _, block = rec.partition(b'\r\n\r\n')
            fields = dict(l.split(b': ', 1) for l in head.split(b'\r\n') if b': ' in l)
            if fields.get(b'WARC-Type') != b'conversion':
                continue
            print(json.dumps({
                'url': fields[b'WARC-Target-URI'].decode(),
                'language': fields.get(b'WARC-Identified-Content-Language', b'').decode(),
                'text': block.decode('utf-8', 'replace')}))


def word_list(path):
    """The words of a file: its blank-separated tokens with a letter or a
    digit, control characters (pdftotext keeps some glyphs as such) taken
    for blanks."""
    t = open(path, encoding='utf-8', errors='replace').read()
    t = ''.join(' ' if ord(c) < 32 else c for c in t)
    return collections.Counter(w for w in t.split() if any(c.isalnum() for c in w))


def words(ref, text):
    a = word_list(ref)
    b = word_list(text)
    both = sum((a & b).values())
    n = sum(a.values())
    print('%.4f %d %d' % (both / n if n else 0, both, n))


if __name__ == '__main__':
    if sys.argv[1] == 'make':
        make(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == 'wet':
        wet(sys.argv[2:])
    elif sys.argv[1] == 'words':
        words(sys.argv[2], sys.argv[3])
