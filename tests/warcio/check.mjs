// Reads WARC files with warcio.js (the npm package pinned in package-lock.json)
// and checks what a researcher's reader would: every record parses, its
// WARC-Block-Digest and WARC-Payload-Digest (sha1, base32) match the bytes, and
// warcio's HTTP parser reads the head of every request, response and revisit.
//
//   node check.mjs FILE...          one line per record: OFFSET LENGTH TYPE URI
//                                    (tab-separated, as `mpicrawl warc` prints
//                                    them), then "records: N" per file
//   node check.mjs --cdxj FILE...    warcio's own CDXJ index of the files
//   node check.mjs --wat FILE...     WAT files: digests as above, every
//                                    metadata record's JSON parsed; per HTML
//                                    page one line: URI, base (or "-"), then
//                                    its links as JSON [[path, url, rel], ...]
//                                    (a refresh meta as ["META@/content",
//                                    its content, "refresh"])
//
// .warc.zst files are read through `zstd -dc` (warcio.js has no zstd), so
// their offsets are those of the decompressed stream: the caller compares
// only types and URIs for them. Errors go to stderr; exit 1 if any.
import { createReadStream } from "node:fs";
import { createHash } from "node:crypto";
import { spawn } from "node:child_process";
import { basename } from "node:path";
import { WARCParser, CDXIndexer } from "warcio";

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32(bytes) {
  let out = "", acc = 0, bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= 0xff;
  }
  if (bits > 0) out += B32[(acc << (5 - bits)) & 31];
  return out;
}

function sha1b32(bytes) {
  return "sha1:" + base32(createHash("sha1").update(bytes).digest());
}

function indexOfCrlfCrlf(b) {
  for (let i = 0; i + 3 < b.length; i++)
    if (b[i] === 13 && b[i + 1] === 10 && b[i + 2] === 13 && b[i + 3] === 10)
      return i + 4;
  return -1;
}

function source(path) {
  if (!path.endsWith(".zst")) return createReadStream(path);
  const z = spawn("zstd", ["-dcq", path], { stdio: ["ignore", "pipe", "inherit"] });
  return z.stdout;
}

let errors = 0;
function fail(path, off, msg) {
  errors++;
  process.stderr.write(`warcio-check: ${path}: record at ${off}: ${msg}\n`);
}

// Pass 1: raw blocks (parseHttp off) for the digests, offsets and lengths.
async function checkDigests(path, quiet = false) {
  const parser = new WARCParser(source(path), { parseHttp: false });
  let n = 0;
  for await (const rec of parser) {
    const h = rec.warcHeaders.headers;
    const type = h.get("WARC-Type") || "";
    const uri = h.get("WARC-Target-URI") || "-";
    const block = await rec.readFully(false);
    const off = parser.offset;
    const clen = Number(h.get("Content-Length"));
    if (block.length !== clen) fail(path, off, `block ${block.length} bytes, Content-Length ${clen}`);
    const bd = h.get("WARC-Block-Digest");
    if (!bd) fail(path, off, `${type} without WARC-Block-Digest`);
    else if (bd !== sha1b32(block)) fail(path, off, `bad WARC-Block-Digest ${bd}`);
    const pd = h.get("WARC-Payload-Digest");
    const ct = (h.get("Content-Type") || "").toLowerCase();
    if (type === "response" && !pd) fail(path, off, "response without WARC-Payload-Digest");
    if (pd && type !== "revisit") {
      let payload = block;
      if (ct.startsWith("application/http")) {
        const k = indexOfCrlfCrlf(block);
        if (k < 0) fail(path, off, "HTTP block without a complete head");
        payload = block.subarray(k < 0 ? block.length : k);
      }
      if (pd !== sha1b32(payload)) fail(path, off, `bad WARC-Payload-Digest ${pd}`);
    }
    if (!h.get("WARC-Record-ID") || !h.get("WARC-Date")) fail(path, off, "no Record-ID or Date");
    if (!quiet) process.stdout.write(`${off}\t${parser.recordLength}\t${type}\t${uri}\n`);
    n++;
  }
  return n;
}

// Pass 2: warcio's HTTP parsing of request, response and revisit heads.
async function checkHttp(path) {
  let n = 0;
  for await (const rec of WARCParser.iterRecords(source(path), { parseHttp: true })) {
    const type = rec.warcType;
    if (type === "response" || type === "request" || type === "revisit") {
      if (!rec.httpHeaders) fail(path, "?", `${type} of ${rec.warcTargetURI}: no HTTP head`);
      else if (type !== "request") {
        const st = Number(rec.httpHeaders.statusCode);
        if (!(st >= 100 && st <= 599))
          fail(path, "?", `${type} of ${rec.warcTargetURI}: status ${st}`);
      }
    }
    await rec.readFully(false);
    n++;
  }
  return n;
}

async function cdxj(paths) {
  const files = paths.map((p) => ({ reader: createReadStream(p), filename: basename(p) }));
  const idx = new CDXIndexer({ format: "cdxj" });
  for await (const cdx of idx.iterIndex(files)) process.stdout.write(idx.serializeCDXJ(cdx));
}

async function wat(path) {
  let n = 0;
  for await (const rec of WARCParser.iterRecords(source(path), { parseHttp: false })) {
    const block = await rec.readFully(false);
    if (rec.warcType !== "metadata") continue;
    n++;
    let j;
    try {
      j = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(block));
    } catch (e) {
      fail(path, "?", `${rec.warcTargetURI}: JSON: ${e.message}`);
      continue;
    }
    if (!j.Container || !j.Envelope || !j.Envelope["WARC-Header-Metadata"])
      fail(path, "?", `${rec.warcTargetURI}: no Container or Envelope`);
    const r = j.Envelope["Payload-Metadata"] && j.Envelope["Payload-Metadata"]["HTTP-Response-Metadata"];
    const html = r && r["HTML-Metadata"];
    if (!html) continue;
    const links = (html.Links || []).concat(html.Head.Link || [])
      .map((l) => [l.path, l.url, l.rel || ""])
      .concat((html.Head.Metas || [])
        .filter((m) => (m["http-equiv"] || "").toLowerCase() === "refresh" && m.content)
        .map((m) => ["META@/content", m.content, "refresh"]));
    process.stdout.write(`${rec.warcTargetURI}\t${html.Head.Base || "-"}\t${JSON.stringify(links)}\n`);
  }
  return n;
}

const args = process.argv.slice(2);
if (args[0] === "--cdxj") {
  await cdxj(args.slice(1));
} else if (args[0] === "--wat") {
  for (const path of args.slice(1)) {
    try {
      const n = await checkDigests(path, true);
      const m = await wat(path);
      if (m !== n - 1) fail(path, "-", `${n} records, ${m} of them metadata`);
    } catch (e) {
      fail(path, "-", `warcio: ${e && e.message ? e.message : e}`);
    }
  }
} else {
  for (const path of args) {
    try {
      const n = await checkDigests(path);
      const m = await checkHttp(path);
      if (n !== m) fail(path, "-", `${n} records with raw blocks, ${m} with HTTP parsing`);
      process.stdout.write(`records: ${n}\n`);
    } catch (e) {
      fail(path, "-", `warcio: ${e && e.message ? e.message : e}`);
    }
  }
}
process.exit(errors ? 1 : 0);
