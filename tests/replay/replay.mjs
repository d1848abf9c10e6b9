// Replays web archives in ReplayWeb.page, in headless Chromium, and reports
// what a reader of the replay would see (tests/e2e/replay.sh checks it).
//
//   node replay.mjs --rwp DIR --source FILE [--source FILE...] --pages FILE
//                   [--urls FILE] [--live RULES] [--tmp DIR] [--timeout S]
//
//   --rwp DIR      ui.js and sw.js of ReplayWeb.page (setup.sh prints DIR)
//   --source FILE  a .warc.gz or .wacz to replay; each is its own collection
//   --pages FILE   URLs of archived pages, one a line: each is replayed (and,
//                  with --live, loaded from the live web) and described
//   --urls FILE    archived URLs, one a line: the status each replays with
//   --live RULES   also load --pages from the live web, Chromium's
//                  --host-resolver-rules set to RULES (TLS errors ignored:
//                  the live page is only compared with)
//   --tmp DIR      where the served site and the browser profiles go
//                  (default: a new directory under $TMPDIR, removed at exit)
//   --timeout S    the whole run's budget in seconds (default 60); every
//                  wait is bounded by it and by shorter limits of its own
//
// The replay page is the embedding ReplayWeb.page documents: a static
// index.html that loads ui.js and holds
//   <replay-web-page source="..." url="..." embed="replayonly">
// with sw.js served from ./replay/ (the default replayBase, the service
// worker's scope). This script serves that site, and the sources under
// /archive/, on a free port of 127.0.0.1 (a secure context, so service
// workers run), with HTTP range requests (a WACZ is read by ranges).
//
// ReplayWeb.page nests the replayed page in two iframes: the app at
// /replay/?source=... and in it the page at /replay/w/COLL/[TS]mp_/URL. The
// replay browser resolves no name but loopback (--host-resolver-rules MAP *
// ~NOTFOUND), so whatever the replayed page shows comes from the archive.
//
// Prints one JSON object: {replaywebpage, browser, defaults (Chromium's look
// of a page without CSS), worker_console (what the service worker logged),
// sources:
// [{source, load_ms, pages: [{url, facts}], urls: [{url, status, ...}]}],
// live: [{url, facts}]}. facts: title, html_font, body_font, body_bg_color,
// body_bg_image (the archived URLs of its url()s), bg_loaded, images (every
// <img>: src as the archived URL, loaded = complete && naturalWidth > 0),
// status (of the document), or error. urls: status (the service worker's
// answer to the page's replay URL, mp_, as Chromium's network layer saw it:
// redirects too), status_id (the same for id_, the original bytes),
// content_type, bytes and sha256 of the id_ body (none for a redirect),
// location (a redirect's target, as the archived URL). Exit 0 when the run
// completed (the checks are the caller's), 2 on bad usage, 1 on a failure.
// Progress goes to stderr; REPLAY_DEBUG=1 adds the replay page's console and
// frame navigations. CHROMIUM overrides /usr/bin/chromium.
import { createReadStream, promises as fs } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

function usage(msg) {
  process.stderr.write(`replay.mjs: ${msg}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { sources: [], timeout: 60 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--rwp") o.rwp = v();
    else if (a === "--source") o.sources.push(v());
    else if (a === "--pages") o.pages = v();
    else if (a === "--urls") o.urls = v();
    else if (a === "--live") o.live = v();
    else if (a === "--tmp") o.tmp = v();
    else if (a === "--timeout") o.timeout = Number(v());
    else usage(`unknown argument ${a}`);
  }
  if (!o.rwp || !o.sources.length || !o.pages) usage("--rwp, --source and --pages are needed");
  if (!(o.timeout > 0)) usage("--timeout wants seconds");
  return o;
}

const opt = parseArgs(process.argv.slice(2));
const T0 = Date.now();
const deadline = T0 + opt.timeout * 1000;
const left = () => deadline - Date.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (msg) => process.stderr.write(`replay: ${((Date.now() - T0) / 1000).toFixed(1)}s ${msg}\n`);

// A promise that fails after ms (and at the deadline at the latest).
function bounded(p, ms, what) {
  const t = Math.max(1, Math.min(ms, left()));
  let timer;
  return Promise.race([
    p,
    new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`${what}: no answer in ${t} ms`)), t);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function readList(file) {
  if (!file) return [];
  return (await fs.readFile(file, "utf8")).split("\n").map((l) => l.trim()).filter(Boolean);
}

// ---------------------------------------------------------------- the site

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "application/javascript",
  ".json": "application/json",
  ".gz": "application/octet-stream",
  ".wacz": "application/zip",
};

async function makeSite(dir, sources) {
  await fs.mkdir(path.join(dir, "replay"), { recursive: true });
  await fs.mkdir(path.join(dir, "archive"), { recursive: true });
  await fs.copyFile(path.join(opt.rwp, "ui.js"), path.join(dir, "ui.js"));
  await fs.copyFile(path.join(opt.rwp, "sw.js"), path.join(dir, "replay", "sw.js"));
  // The page reads source and url from its query: one page for every replay.
  await fs.writeFile(
    path.join(dir, "index.html"),
    `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<title>mpicrawl: replay</title>
<script src="./ui.js"></script>
<style>html, body { margin: 0; height: 100%; }</style>
</head>
<body>
<script>
const q = new URLSearchParams(location.search);
const e = document.createElement("replay-web-page");
e.setAttribute("source", q.get("source"));
e.setAttribute("url", q.get("url"));
e.setAttribute("embed", "replayonly");
document.body.appendChild(e);
</script>
</body>
</html>
`,
  );
  const names = [];
  for (const s of sources) {
    const name = path.basename(s);
    if (names.includes(name)) usage(`two sources named ${name}`);
    names.push(name);
    await fs.symlink(path.resolve(s), path.join(dir, "archive", name));
  }
  return names;
}

// A static server with single-range requests (bytes=A-B, A-, -N).
function serve(dir) {
  const server = createServer(async (req, res) => {
    try {
      let p = decodeURIComponent(new URL(req.url, "http://x").pathname);
      if (p.endsWith("/")) p += "index.html";
      const file = path.join(dir, path.normalize(p));
      if (!file.startsWith(dir + path.sep)) throw new Error("outside");
      const st = await fs.stat(file);
      if (!st.isFile()) throw new Error("not a file");
      const size = st.size;
      const head = {
        "Content-Type": TYPES[path.extname(file)] || "application/octet-stream",
        "Accept-Ranges": "bytes",
        "Cache-Control": "no-store",
      };
      let start = 0;
      let end = size - 1;
      let status = 200;
      const range = req.headers.range;
      if (range) {
        const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
        if (m && (m[1] !== "" || m[2] !== "")) {
          if (m[1] === "") {
            start = Math.max(0, size - Number(m[2]));
          } else {
            start = Number(m[1]);
            if (m[2] !== "") end = Math.min(end, Number(m[2]));
          }
          if (start > end || start >= size) {
            res.writeHead(416, { "Content-Range": `bytes */${size}` });
            res.end();
            return;
          }
          status = 206;
          head["Content-Range"] = `bytes ${start}-${end}/${size}`;
        }
      }
      head["Content-Length"] = String(end - start + 1);
      res.writeHead(status, head);
      if (req.method === "HEAD" || size === 0) {
        res.end();
        return;
      }
      createReadStream(file, { start, end }).pipe(res);
    } catch {
      res.writeHead(404, { "Content-Type": "text/plain" });
      res.end("not found\n");
    }
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

// ------------------------------------------------------------- the browser

async function launch(profile, extraArgs) {
  const args = ["--no-first-run", "--no-default-browser-check", "--disable-gpu",
    "--disable-dev-shm-usage", "--window-size=1200,900", ...extraArgs];
  if (typeof process.getuid === "function" && process.getuid() === 0) args.push("--no-sandbox");
  return bounded(
    puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      userDataDir: profile,
      args,
      timeout: 20000,
      protocolTimeout: 20000,
    }),
    25000,
    "chromium launch",
  );
}

// The replay URL of a resource: /replay/w/COLL/[TS][MOD_]/URL -> URL. COLL
// is one path segment for a WARC source, two for a WACZ (id-X/:SHA256).
const REPLAY_RE = /^(https?:\/\/[^/]+\/replay\/w\/.+?\/)(\d*)([a-z]{2}_)?\/(https?:\/\/.+)$/;
function archived(u) {
  const m = REPLAY_RE.exec(u || "");
  return m ? m[4] : u;
}

// What the document of a frame (replayed or live) shows. Runs in the page.
async function describe(frame) {
  return frame.evaluate(async () => {
    const urls = (s) => [...s.matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/g)].map((m) => m[1]);
    const html = getComputedStyle(document.documentElement);
    const body = getComputedStyle(document.body);
    const bg = urls(body.backgroundImage);
    const bgLoaded = await Promise.all(
      bg.map(
        (u) =>
          new Promise((resolve) => {
            const im = new Image();
            const t = setTimeout(() => resolve(false), 5000);
            im.onload = () => { clearTimeout(t); resolve(im.naturalWidth > 0); };
            im.onerror = () => { clearTimeout(t); resolve(false); };
            im.src = u;
          }),
      ),
    );
    return {
      title: document.title,
      html_font: html.fontFamily,
      body_font: body.fontFamily,
      body_bg_color: body.backgroundColor,
      body_bg_image: bg,
      bg_loaded: bg.length > 0 && bgLoaded.every(Boolean),
      images: [...document.images].map((im) => ({
        src: im.currentSrc || im.src,
        loaded: im.complete && im.naturalWidth > 0,
        width: im.naturalWidth,
      })),
    };
  });
}

function normalizeFacts(f) {
  f.body_bg_image = f.body_bg_image.map(archived);
  for (const im of f.images) im.src = archived(im.src);
  return f;
}

// Waits until every <img> of the frame's document has settled (loaded or
// failed) and the document's load event has passed.
async function settled(frame) {
  return frame.evaluate(
    () => document.readyState === "complete" && [...document.images].every((im) => im.complete),
  );
}

// True when the frame is ReplayWeb.page's app frame (/replay/?source=...)
// loaded from the network, not from its service worker: a document without
// the app's <replay-app-main> (our server has no /replay/ page: a 404).
async function appFrameStale(page, origin) {
  const app = page.frames().find((fr) => fr.url().startsWith(`${origin}/replay/?`));
  if (!app || app.detached) return false;
  try {
    return await bounded(
      app.evaluate(() => document.readyState === "complete" && !document.querySelector("replay-app-main")),
      2000,
      "app frame",
    );
  } catch {
    return false;
  }
}

// Opens the replay of url from the source and returns the page's frame.
//
// On the first load ReplayWeb.page registers its service worker and then
// creates the app frame; that frame may navigate before the worker controls
// it, and come from the server. ReplayWeb.page reloads it when the frame has
// no controller at its load event, but the worker may claim the frame in
// between: then nothing reloads it and the replay never starts (3 first
// loads in 12 with python3 -m http.server, 2 in 60 with this server). Such
// a frame is recognised (appFrameStale) and the page loaded again: the
// worker, active by then, controls the new frames.
async function openReplay(page, origin, name, url, limitMs) {
  const until = Date.now() + Math.min(limitMs, left());
  const src = `/archive/${encodeURIComponent(name)}`;
  const top = `${origin}/?source=${encodeURIComponent(src)}&url=${encodeURIComponent(url)}`;
  let status = null;
  const onResponse = (r) => {
    if (archived(r.url()) === url && REPLAY_RE.test(r.url()) && /mp_\//.test(r.url()))
      status = r.status();
  };
  page.on("response", onResponse);
  const reloads = [];
  try {
    while (Date.now() < until) {
      await bounded(page.goto(top, { waitUntil: "load", timeout: 15000 }), 16000, `open ${url}`);
      // The app may also reload its frame itself: find the replayed
      // document again until it settles.
      const giveUp = Math.min(until, Date.now() + 15000);
      let stale = 0;
      let why = "the replayed document did not settle in 15 s";
      while (Date.now() < giveUp) {
        const f = page.frames().find((fr) => {
          const m = REPLAY_RE.exec(fr.url());
          return m && m[3] === "mp_" && m[4] === url;
        });
        if (f && !f.detached) {
          try {
            if (await bounded(settled(f), 3000, "settled")) {
              await sleep(150);
              if (!f.detached && (await bounded(settled(f), 3000, "settled"))) {
                return { frame: f, status, reloads };
              }
            }
          } catch {
            // detached or navigated meanwhile: look again
          }
        } else if (await appFrameStale(page, origin)) {
          // A second in a row: not a frame about to be replaced.
          if (++stale >= 10) {
            why = "the app frame came from the server, not the service worker";
            break;
          }
        } else {
          stale = 0;
        }
        await sleep(100);
      }
      reloads.push(why);
      log(`${url}: ${why}: loading the page again`);
    }
    throw new Error(`${url}: no replayed document in ${limitMs} ms (${reloads.join("; ")})`);
  } finally {
    page.off("response", onResponse);
  }
}

// The status of every URL as the service worker replays it, fetched from
// ReplayWeb.page's app frame (in the worker's scope, not rewritten by the
// replay): mp_ as the page would load it, id_ for the original bytes.
// Chromium's network events give the status of a redirect too (a fetch
// sees an opaque redirect).
async function replayStatuses(page, appFrame, prefix, urls) {
  const seen = new Map();
  const onResponse = (r) => {
    const h = r.headers();
    seen.set(r.url(), { status: r.status(), location: h.location || null });
  };
  page.on("response", onResponse);
  try {
    const results = await bounded(
      appFrame.evaluate(
        async (prefix, urls) => {
          const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
          const out = [];
          for (const u of urls) {
            const r = { url: u };
            for (const mod of ["mp_", "id_"]) {
              const req = `${prefix}${mod}/${u}`;
              try {
                const resp = await fetch(req, { redirect: "manual", cache: "no-store" });
                const body = await resp.arrayBuffer();
                r[mod] = {
                  request: new URL(req).href,
                  js_status: resp.status,
                  type: resp.type,
                  content_type: resp.headers.get("content-type"),
                  bytes: body.byteLength,
                  sha256: resp.type === "opaqueredirect" ? null : hex(await crypto.subtle.digest("SHA-256", body)),
                };
              } catch (e) {
                r[mod] = { request: new URL(req).href, error: String(e) };
              }
            }
            out.push(r);
          }
          return out;
        },
        prefix,
        urls,
      ),
      Math.max(5000, urls.length * 2000),
      "replaying the URLs",
    );
    // The network events may trail the fetches a little.
    const want = results.flatMap((r) => [r.mp_.request, r.id_.request]);
    for (let i = 0; i < 50 && !want.every((u) => seen.has(u)); i++) await sleep(50);
    return results.map((r) => {
      const mp = seen.get(r.mp_.request) || {};
      const id = seen.get(r.id_.request) || {};
      return {
        url: r.url,
        status: mp.status ?? (r.mp_.type === "opaqueredirect" ? null : r.mp_.js_status ?? null),
        status_id: id.status ?? (r.id_.type === "opaqueredirect" ? null : r.id_.js_status ?? null),
        type: r.id_.type ?? null,
        content_type: r.id_.content_type ?? null,
        bytes: r.id_.type === "opaqueredirect" ? null : r.id_.bytes ?? null,
        sha256: r.id_.sha256 ?? null,
        location: id.location ? archived(new URL(id.location, r.id_.request).href) : null,
        error: r.mp_.error || r.id_.error || undefined,
      };
    });
  } finally {
    page.off("response", onResponse);
  }
}

// The collection's pages as ReplayWeb.page lists them (its "Pages" tab):
// its service worker's API, c/COLL/pages beside the replay prefix.
async function pagesList(appFrame, prefix) {
  const m = /^(.*\/w\/)([^/:]+)/.exec(prefix);
  const api = m ? `${m[1]}api/c/${m[2]}/pages` : prefix;
  try {
    return await bounded(
      appFrame.evaluate(async (u) => {
        const r = await fetch(u, { cache: "no-store" });
        const j = await r.json();
        return { api: u, status: r.status, urls: (j.pages || []).map((p) => p.url) };
      }, api),
      10000,
      "the pages list",
    );
  } catch (e) {
    return { api, error: String(e.message || e) };
  }
}

async function replaySource(browser, origin, name, pages, urls) {
  const out = { source: name, pages: [], urls: [] };
  const page = await browser.newPage();
  page.setDefaultTimeout(15000);
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e).slice(0, 300)));
  if (process.env.REPLAY_DEBUG) {
    page.on("console", (m) => log(`console ${m.type()}: ${m.text().slice(0, 300)}`));
    page.on("framenavigated", (f) => log(`frame: ${f.url().slice(0, 160)}`));
  }
  try {
    let appFrame = null;
    let prefix = null;
    for (const url of pages) {
      const t = Date.now();
      const entry = { url };
      try {
        const { frame, status, reloads } = await openReplay(page, origin, name, url, 30000);
        entry.facts = normalizeFacts(await bounded(describe(frame), 10000, `describe ${url}`));
        entry.facts.status = status;
        if (reloads.length) entry.reloads = reloads;
        if (out.load_ms === undefined) out.load_ms = Date.now() - t;
        appFrame = frame.parentFrame();
        prefix = REPLAY_RE.exec(frame.url())[1];
      } catch (e) {
        entry.error = String(e.message || e);
      }
      entry.ms = Date.now() - t;
      out.pages.push(entry);
      log(`${name}: ${url} ${entry.error ? "error: " + entry.error : "replayed"} (${entry.ms} ms)`);
    }
    if (urls.length) {
      if (!appFrame) {
        out.urls_error = "no page replayed: no frame to replay the URLs from";
      } else {
        try {
          out.urls = await replayStatuses(page, appFrame, prefix, urls);
        } catch (e) {
          out.urls_error = String(e.message || e);
        }
        log(`${name}: ${out.urls.length} URLs replayed`);
      }
    }
    if (appFrame) out.api_pages = await pagesList(appFrame, prefix);
  } finally {
    out.page_errors = errors;
    await page.close().catch(() => {});
  }
  return out;
}

async function livePages(profile, rules, pages) {
  const browser = await launch(profile, [`--host-resolver-rules=${rules}`, "--ignore-certificate-errors"]);
  const out = [];
  try {
    const page = await browser.newPage();
    for (const url of pages) {
      const entry = { url };
      try {
        const resp = await bounded(page.goto(url, { waitUntil: "load", timeout: 15000 }), 16000, `live ${url}`);
        for (let i = 0; i < 50 && !(await settled(page.mainFrame())); i++) await sleep(100);
        entry.facts = await bounded(describe(page.mainFrame()), 10000, `describe live ${url}`);
        entry.facts.status = resp ? resp.status() : null;
      } catch (e) {
        entry.error = String(e.message || e);
      }
      out.push(entry);
    }
  } finally {
    await browser.close().catch(() => {});
  }
  log(`live: ${out.length} pages`);
  return out;
}

// Chromium's own look of a document without a stylesheet: what a replay
// whose CSS did not load would show.
async function defaults(browser) {
  const page = await browser.newPage();
  try {
    await page.setContent('<!doctype html><html><head><title>d</title></head><body><p>x</p></body></html>');
    return await bounded(describe(page.mainFrame()), 5000, "defaults");
  } finally {
    await page.close().catch(() => {});
  }
}

async function main() {
  const pages = await readList(opt.pages);
  const urls = await readList(opt.urls);
  const ownTmp = !opt.tmp;
  const tmp = opt.tmp ? path.resolve(opt.tmp) : await fs.mkdtemp(path.join(tmpdir(), "mpicrawl-replay-"));
  const site = path.join(tmp, "site");
  await fs.rm(site, { recursive: true, force: true });
  const names = await makeSite(site, opt.sources);
  const server = await serve(site);
  const origin = `http://127.0.0.1:${server.address().port}`;
  let browser = null;
  const result = {
    replaywebpage: JSON.parse(await fs.readFile(path.join(opt.rwp, "package.json"), "utf8")).version,
  };
  try {
    if (opt.live) result.live = await livePages(path.join(tmp, "profile-live"), opt.live, pages);
    // A fresh profile: nothing replayed from an earlier run's storage.
    const profile = path.join(tmp, "profile-replay");
    await fs.rm(profile, { recursive: true, force: true });
    browser = await launch(profile, ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]);
    result.browser = await browser.version();
    // The service worker's console: what ReplayWeb.page says about the
    // records it reads (a wrong digest, a record it cannot parse).
    result.worker_console = [];
    const watch = async (t) => {
      if (t.type() !== "service_worker" && t.type() !== "worker" && t.type() !== "shared_worker") return;
      try {
        const w = await t.worker();
        w?.on("console", (m) => {
          if (result.worker_console.length < 200) result.worker_console.push(`${t.type()} ${m.type()}: ${m.text().slice(0, 300)}`);
        });
      } catch {
        // the worker went away
      }
    };
    browser.on("targetcreated", watch);
    for (const t of browser.targets()) await watch(t);
    result.defaults = await defaults(browser);
    result.sources = [];
    for (const name of names) result.sources.push(await replaySource(browser, origin, name, pages, urls));
  } finally {
    if (browser) await browser.close().catch(() => {});
    server.close();
    server.closeAllConnections?.();
    if (ownTmp) await fs.rm(tmp, { recursive: true, force: true }).catch(() => {});
  }
  result.ms = Date.now() - T0;
  process.stdout.write(JSON.stringify(result, null, 1) + "\n");
}

const watchdog = setTimeout(() => {
  process.stderr.write(`replay.mjs: over the ${opt.timeout} s budget\n`);
  process.exit(1);
}, opt.timeout * 1000 + 5000);
watchdog.unref();
main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`replay.mjs: ${e.stack || e}\n`);
    process.exit(1);
  },
);
