#!/usr/bin/env python3
"""Packs a crawl directory into one WACZ file (WACZ 1.1.1) for ReplayWeb.page.

    python3 tests/replay/wacz.py CRAWL_DIR OUT.wacz [--title TITLE]

The WACZ holds, uncompressed (ZIP_STORED: a reader takes a record by its
offset with an HTTP range request):

  archive/NAME.warc.gz      every WARC file of every segment, as written
                            (pages, -robots and -diagnostics series)
  indexes/index.cdxj        the crawl's own CDXJ lines (DIR/segments/*/cdxj/),
                            merged and sorted bytewise: their "filename",
                            "offset" and "length" are what the reader follows
  pages/pages.jsonl         the 2xx text/html responses of the pages series
  datapackage.json          every file with its sha256 and size

mpicrawl's CDXJ is used as it is, so a replay from the WACZ also checks the
index (a .warc.gz source is indexed by ReplayWeb.page itself). Only .warc.gz
files are packed (ReplayWeb.page does not read .warc.zst).
"""
import argparse
import datetime
import glob
import hashlib
import json
import os
import sys
import zipfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("crawl_dir")
    ap.add_argument("out")
    ap.add_argument("--title", default=None)
    a = ap.parse_args()

    warcs = sorted(glob.glob(os.path.join(a.crawl_dir, "segments", "*", "warc", "*.warc.*")))
    if not warcs:
        sys.exit("wacz.py: no WARC files under %s/segments/*/warc/" % a.crawl_dir)
    names = {}
    for w in warcs:
        name = os.path.basename(w)
        if not name.endswith(".warc.gz"):
            sys.exit("wacz.py: %s: only .warc.gz files can be replayed" % w)
        if name in names:
            sys.exit("wacz.py: two WARC files named %s" % name)
        names[name] = w

    lines = []
    for c in glob.glob(os.path.join(a.crawl_dir, "segments", "*", "cdxj", "*.cdxj")):
        with open(c, "rb") as f:
            lines.extend(l for l in f.read().split(b"\n") if l)
    lines.sort()
    pages = []
    for l in lines:
        key, ts, js = l.split(b" ", 2)
        rec = json.loads(js)
        if rec.get("filename") not in names:
            sys.exit("wacz.py: a CDXJ line names %s, not a WARC file of the crawl"
                     % rec.get("filename"))
        fn = rec["filename"]
        if (fn.endswith("-robots.warc.gz") or fn.endswith("-diagnostics.warc.gz") or
                not rec.get("status", "").startswith("2") or rec.get("mime") != "text/html"):
            continue
        t = ts.decode()
        pages.append({"id": hashlib.sha1(l).hexdigest()[:24], "url": rec["url"],
                      "ts": "%s-%s-%sT%s:%s:%sZ" % (t[0:4], t[4:6], t[6:8], t[8:10],
                                                    t[10:12], t[12:14])})
    index = b"".join(l + b"\n" for l in lines)
    pages_jsonl = (json.dumps({"format": "json-pages-1.0", "id": "pages",
                               "title": "All Pages"}) + "\n" +
                   "".join(json.dumps(p) + "\n" for p in pages)).encode()

    resources = []
    tmp = a.out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        def put(path, data=None, src=None):
            h, n = hashlib.sha256(), 0
            if src is not None:
                z.write(src, path)
                with open(src, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
                        n += len(chunk)
            else:
                z.writestr(path, data)
                h.update(data)
                n = len(data)
            resources.append({"name": os.path.basename(path), "path": path,
                              "hash": "sha256:" + h.hexdigest(), "bytes": n})

        for name in sorted(names):
            put("archive/" + name, src=names[name])
        put("indexes/index.cdxj", index)
        put("pages/pages.jsonl", pages_jsonl)
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        package = {"profile": "data-package", "wacz_version": "1.1.1",
                   "title": a.title or os.path.basename(os.path.abspath(a.crawl_dir)),
                   "created": now, "software": "mpicrawl tests/replay/wacz.py",
                   "resources": resources}
        z.writestr("datapackage.json", json.dumps(package, indent=2) + "\n")
    os.replace(tmp, a.out)
    print("wacz: %s: %d WARC files, %d index lines, %d pages"
          % (a.out, len(names), len(lines), len(pages)))


if __name__ == "__main__":
    main()
