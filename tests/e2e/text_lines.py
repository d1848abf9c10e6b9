#!/usr/bin/env python3
"""The WET checks of tests/e2e/text_lines.sh, against `simweb --lines`
(URL<TAB>KIND<TAB>LINE, KIND text or boiler):

    text_lines.py lines LINES WET...        every expected line whole, no glued
                                            word, no binary
    text_lines.py mark|drop LINES WET...    text.boilerplate's outcome

Exits 1 when a check fails; prints what it measured."""
import collections
import gzip
import sys


def records(path):
    data = gzip.open(path).read()
    i = 0
    while i < len(data):
        he = data.index(b"\r\n\r\n", i)
        head = data[i:he].decode("utf-8").split("\r\n")
        f = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:])}
        n = int(f["content-length"])
        yield f, data[he + 4:he + 4 + n]
        i = he + 4 + n + 4


def conversions(paths):
    for path in paths:
        for f, block in records(path):
            if f.get("warc-type") == "conversion":
                yield f, f["warc-target-uri"], block


def expected(path):
    lines, text, boiler = collections.defaultdict(list), collections.defaultdict(list), \
        collections.defaultdict(list)
    for line in open(path, encoding="utf-8"):
        url, kind, t = line.rstrip("\n").split("\t", 2)
        lines[url].append(t)
        (boiler if kind == "boiler" else text)[url].append(t)
    return lines, text, boiler


def check_lines(want, paths):
    vocab = set(w for ls in want.values() for t in ls for w in t.split(" "))
    pages = present = n_expected = glued = binary = 0
    examples = []
    for f, url, block in conversions(paths):
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError:
            binary += 1
            continue
        if any(ord(c) < 32 and c != "\n" for c in text):
            binary += 1
        if url not in want:
            continue
        pages += 1
        got = collections.Counter(text.split("\n"))
        for line in want[url]:
            n_expected += 1
            if got[line] > 0:
                got[line] -= 1
                present += 1
            elif len(examples) < 3:
                examples.append("%s: missing %r" % (url, line))
        for word in (w for line in text.split("\n") for w in line.split(" ")):
            if word and word not in vocab:
                glued += 1
                if len(examples) < 6:
                    examples.append("%s: %r not a word of the page" % (url, word))
    print("pages %d, expected lines %d, present %d (%.2f %%), glued words %d, binary records %d"
          % (pages, n_expected, present, 100.0 * present / max(n_expected, 1), glued, binary))
    for e in examples:
        print("  " + e)
    return pages >= 100 and present >= 0.99 * n_expected and glued == 0 and binary == 0


def check_boiler(mode, text, boiler, paths):
    pages = right = kept = want_kept = left = 0
    for f, url, block in conversions(paths):
        if url not in text:
            continue
        pages += 1
        lines = block.decode("utf-8").split("\n")
        if mode == "mark":
            nums = [int(x) for x in f.get("x-mpicrawl-boilerplate-lines", "").split(",") if x]
            right += sorted(lines[k - 1] for k in nums if 0 < k <= len(lines)) == \
                sorted(boiler[url])
            continue
        got = collections.Counter(lines)
        for t in text[url]:
            want_kept += 1
            if got[t] > 0:
                got[t] -= 1
                kept += 1
        left += sum(1 for b in boiler[url] if got[b] > 0)
    if mode == "mark":
        print("mark: %d pages, boilerplate lines right on %d (%.1f %%)"
              % (pages, right, 100.0 * right / max(pages, 1)))
        return pages >= 100 and right >= 0.99 * pages
    print("drop: %d pages, text lines kept %d of %d (%.2f %%), boilerplate lines left %d"
          % (pages, kept, want_kept, 100.0 * kept / max(want_kept, 1), left))
    return pages >= 100 and kept >= 0.99 * want_kept and left == 0


def main():
    mode, lines_path, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    lines, text, boiler = expected(lines_path)
    ok = check_lines(lines, paths) if mode == "lines" else check_boiler(mode, text, boiler, paths)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
