#!/usr/bin/env python3
"""Loopback server for the kiosk and privacy tests. The journey is http://127.0.0.1:PORT, a
foreign origin http://localhost:PORT (same server).

  /escape.html  each click (a person's, with a user gesture) tries one way out of a kiosk:
                window.open, a target=_blank link, an external link, <input type=file>,
                window.print(), <input type=color>, window.open of its own origin
                (?tries=N: the first N); then it sends test.done
  /write.html   tries every way a page can write: website data of every kind, and downloads
                (<a download> of a blob with and without a click, a data: URL, a name with a
                path, a cross-origin frame's blob and attachment, Content-Disposition:
                attachment at top level, names that already exist); after the first click
                (a blob download with a user gesture) it sends test.done
  /burst.html   on load, sets location.href to a foreign page 5 times and calls window.open
                twice (no click); on each click, 25 location.href and 5 window.open to foreign
                pages; sends test.ready on load and test.tried after each click
  /capture.html asks for a document capture and leaves the capture window open
  /attachment?name=N  a Content-Disposition: attachment response named N

Every downloaded body holds MARKER, so a test can look for it anywhere on disk.
Usage: kiosk-privacy-server.py MARKER CLIENT_JS   (prints the port, then serves until killed)
"""
import sys
import urllib.parse

from fixture_server import FixtureHandler, serve


MARKER = sys.argv[1]
CLIENT = open(sys.argv[2], "rb").read()

HEAD = """<!doctype html><html><head><meta charset="utf-8"><title>{title}</title>
<script src="/gbgbridge-client.js"></script></head>
<body style="margin:0;font-family:sans-serif">"""

ESCAPE = HEAD.format(title="Kiosk escape") + """
<div id="catcher" style="position:fixed;inset:0;background:#eef">Click anywhere</div>
<a id="blank" target="_blank" href="FOREIGN/blank.html">blank</a>
<a id="external" href="FOREIGN/external.html">external</a>
<input id="file" type="file"><input id="color" type="color">
<script>
  const send = (action, data) => window.GBGBridgeClient.send(action, data || {});
  const tries = [
    () => window.open("FOREIGN/popup.html"),
    () => document.getElementById("blank").click(),
    () => document.getElementById("external").click(),
    () => document.getElementById("file").click(),
    () => window.print(),
    () => document.getElementById("color").click(),
    () => window.open("/same-origin.html"),
  ];
  // ?tries=N stops after the first N (the links alone).
  const limit = Number(new URLSearchParams(location.search).get("tries")) || tries.length;
  let next = 0;
  document.getElementById("catcher").addEventListener("click", () => {
    if (next >= limit) return;
    tries[next++]();
    send("test.tried", { count: next });
    if (next === limit) setTimeout(() => send("test.done", { location: location.href }), 1000);
  });
  window.addEventListener("load", () => send("test.ready"));
</script></body></html>"""

WRITE = HEAD.format(title="Every way to write") + """
<div id="catcher" style="position:fixed;inset:0;background:#efe">Click anywhere</div>
<script>
  const send = (action, data) => window.GBGBridgeClient.send(action, data || {});
  const body = (name) => "MARKER " + name + " " + "x".repeat(2000);
  const save = (href, name) => {
    const link = document.createElement("a");
    link.href = href;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
  };
  const blob = (name) => URL.createObjectURL(new Blob([body(name)], { type: "application/octet-stream" }));
  const stored = [];
  const attempt = async (name, work) => {
    try { await work(); stored.push(name); } catch (error) { stored.push(name + ": " + error); }
  };
  async function storeEverything() {
    await attempt("localStorage", () => localStorage.setItem("k", body("localStorage")));
    await attempt("sessionStorage", () => sessionStorage.setItem("k", body("sessionStorage")));
    document.cookie = "k=MARKER; max-age=86400; path=/";
    await attempt("indexedDB", () => new Promise((resolve, reject) => {
      const open = indexedDB.open("db", 1);
      open.onupgradeneeded = () => open.result.createObjectStore("s");
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const transaction = open.result.transaction("s", "readwrite");
        const big = new Blob([body("indexedDB").repeat(1500)]);
        transaction.objectStore("s").put({ text: body("indexedDB"), big }, "k");
        transaction.oncomplete = resolve;
        transaction.onerror = () => reject(transaction.error);
      };
    }));
    await attempt("caches", async () => {
      const cache = await caches.open("c");
      await cache.put("/cached", new Response(body("caches")));
    });
    await attempt("opfs", async () => {
      const root = await navigator.storage.getDirectory();
      const handle = await root.getFileHandle("opfs.txt", { create: true });
      const writable = await handle.createWritable();
      await writable.write(body("opfs"));
      await writable.close();
    });
    await attempt("serviceWorker", () => navigator.serviceWorker.register("/sw.js"));
  }
  let clicked = false;
  document.getElementById("catcher").addEventListener("click", () => {
    if (clicked) return;
    clicked = true;
    save(blob("blob-click.txt"), "blob-click.txt");
    setTimeout(() => send("test.done", { stored, location: location.href }), 1500);
  });
  // One at a time: a download started by a link is a navigation, and the next one would cancel it.
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  window.addEventListener("load", async () => {
    await storeEverything();
    save(blob("blob-noclick.txt"), "blob-noclick.txt");
    await pause(200);
    save("data:application/octet-stream," + encodeURIComponent(body("data.txt")), "data.txt");
    await pause(200);
    save(blob("hidden"), "../../.hidden-profile");
    await pause(200);
    save(blob("existing.txt"), "existing.txt");
    await pause(200);
    location.href = "/attachment?name=report.txt";
    await pause(200);
    const frame = document.createElement("iframe");
    frame.src = "FOREIGN/frame.html";
    document.body.appendChild(frame);
    await pause(1000);
    send("test.ready", { stored });
  });
</script></body></html>"""

CAPTURE = HEAD.format(title="Kiosk capture") + """
<h1>Waiting for the document photo</h1>
<script>
  window.addEventListener("load", () => {
    window.GBGBridgeClient.request("camera.document.capture", { side: "front" });
    window.GBGBridgeClient.send("test.ready");
  });
</script></body></html>"""

FRAME = """<!doctype html><meta charset="utf-8"><body><script>
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob(["MARKER frame-blob.txt"], { type: "application/octet-stream" }));
  link.download = "frame-blob.txt";
  document.body.appendChild(link);
  link.click();
  setTimeout(() => { location.href = "/attachment?name=frame.txt"; }, 300);
</script></body>"""

SERVICE_WORKER = """self.addEventListener("install", (event) => {
  event.waitUntil(caches.open("sw").then((cache) => cache.put("/sw-cached", new Response("MARKER sw"))));
});"""


BURST = HEAD.format(title="Browser burst") + """
<div id="catcher" style="position:fixed;inset:0;background:#efe">Click anywhere</div>
<script>
  const send = (action, data) => window.GBGBridgeClient.send(action, data || {});
  const burst = (count, opens, tag) => {
    for (let i = 0; i < count; i++) location.href = "FOREIGN/" + tag + "-" + i + ".html";
    for (let i = 0; i < opens; i++) window.open("FOREIGN/" + tag + "-open-" + i + ".html");
  };
  let clicks = 0;
  document.getElementById("catcher").addEventListener("click", () => {
    clicks += 1;
    burst(25, 5, "click" + clicks);
    send("test.tried", { count: clicks });
  });
  window.addEventListener("load", () => {
    setTimeout(() => { burst(5, 2, "load"); send("test.ready"); }, 100);
  });
</script></body></html>"""

class Handler(FixtureHandler):
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        port = self.server.server_address[1]
        foreign = "http://localhost:%d" % port
        headers = []
        kind = "text/html; charset=utf-8"
        if url.path == "/gbgbridge-client.js":
            body, kind = CLIENT, "text/javascript"
        elif url.path == "/escape.html":
            body = ESCAPE.replace("FOREIGN", foreign).encode()
        elif url.path == "/burst.html":
            body = BURST.replace("FOREIGN", foreign).encode()
        elif url.path == "/write.html":
            body = WRITE.replace("FOREIGN", foreign).replace("MARKER", MARKER).encode()
        elif url.path == "/capture.html":
            body = CAPTURE.encode()
        elif url.path == "/frame.html":
            body = FRAME.replace("MARKER", MARKER).encode()
        elif url.path == "/sw.js":
            body, kind = SERVICE_WORKER.replace("MARKER", MARKER).encode(), "text/javascript"
        elif url.path == "/attachment":
            name = urllib.parse.parse_qs(url.query).get("name", ["file.txt"])[0]
            body = ("%s %s %s" % (MARKER, name, "y" * 2000)).encode()
            kind = "application/octet-stream"
            headers.append(("Content-Disposition", 'attachment; filename="%s"' % name))
        else:
            body = b"<!doctype html><title>elsewhere</title><h1>elsewhere</h1>"
        self.reply(body, kind, headers)


serve(Handler)
