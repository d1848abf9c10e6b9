#!/usr/bin/env bash
# URL resolution against the WPT URL suite (http/https subset,
# $CONFORMANCE_DIR/url_cases.jsonl): every case goes through
# `mpicrawl url --resolve-only --hex`, many inputs per process (one per
# base).
# In scope are the cases that must fail and those whose result is an http(s)
# URL; the others (results such as "mailto:..." or "ws://...") must be
# refused as "not http or https". At least 95 % of the cases in scope must
# pass, and docs/URLS.md must list exactly the failing ids, each with a
# reason.
. "$(dirname "$0")/lib.sh"

cases=$CONFORMANCE_DIR/url_cases.jsonl
if [ ! -f "$cases" ]; then
	skip 4 "the URL conformance suite is not at $cases: set CONFORMANCE_DIR to its folder to run it"
	finish
	exit 0
fi

python3 - "$MPICRAWL" "$cases" "$ROOT/docs/URLS.md" >"$SCRATCH/report" <<'EOF'
import json, re, subprocess, sys

binary, path, doc = sys.argv[1:4]
cases = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
groups = {}
for c in cases:
    groups.setdefault(c["base"], []).append(c)
got = {}
for base, group in groups.items():
    # Hex, so that NULs and newlines reach the parser as they are.
    argv = [binary, "url", "--resolve-only", "--hex"]
    if base is not None:
        argv += ["--base", base.encode("utf-8").hex()]
    argv.append("--")
    argv += [c["input"].encode("utf-8").hex() for c in group]
    out = subprocess.run(argv, stdout=subprocess.PIPE,
                         timeout=120).stdout.decode("utf-8", "replace").split("\n")
    for i, c in enumerate(group):
        got[c["id"]] = out[i] if i < len(out) else "<no output>"
scope = failing = outside = outside_bad = 0
bad = []
for c in cases:
    r = got[c["id"]]
    if not c["failure"] and c["protocol"] not in ("http:", "https:"):
        outside += 1
        if r != "invalid\tnot http or https":
            outside_bad += 1
            print("not ok: %s other scheme not refused: %r" % (c["id"], r))
        continue
    scope += 1
    ok = r.startswith("invalid\t") if c["failure"] else r == c["href"]
    if not ok:
        bad.append(c["id"])
        print("FAIL %s input=%r base=%r want=%r got=%r" % (
            c["id"], c["input"], c["base"], None if c["failure"] else c["href"], r))
listed = {}
for line in open(doc, encoding="utf-8"):
    m = re.match(r"^- `(url-\d+)`: (\S.*)$", line)
    if m:
        listed[m.group(1)] = m.group(2)
passed = scope - len(bad)
print("rate %d/%d in scope (%.1f%%); %d other-scheme cases, %d not refused; "
      "%d/%d of all cases" % (passed, scope, 100.0 * passed / scope, outside,
                              outside_bad, passed + outside - outside_bad, len(cases)))
print("undocumented " + " ".join(sorted(set(bad) - set(listed))))
print("stale " + " ".join(sorted(set(listed) - set(bad))))
print("pct %d" % (1000 * passed // scope))
print("outside_bad %d" % outside_bad)
EOF
grep -E '^(FAIL|not ok|rate)' "$SCRATCH/report"
pct=$(sed -n 's/^pct //p' "$SCRATCH/report")
undoc=$(sed -n 's/^undocumented *//p' "$SCRATCH/report")
stale=$(sed -n 's/^stale *//p' "$SCRATCH/report")
obad=$(sed -n 's/^outside_bad //p' "$SCRATCH/report")
check "pass rate at least 95% (got ${pct:-?} per mille)" test "${pct:-0}" -ge 950
check "other schemes refused" test "${obad:-1}" -eq 0
[ -z "$undoc" ] || echo "failing but not listed in docs/URLS.md: $undoc"
check "every failing case listed in docs/URLS.md" test -z "$undoc"
[ -z "$stale" ] || echo "listed in docs/URLS.md but passing: $stale"
check "no passing case listed in docs/URLS.md" test -z "$stale"
finish
