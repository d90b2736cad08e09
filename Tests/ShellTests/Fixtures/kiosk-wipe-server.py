#!/usr/bin/env python3
"""Loopback server for the kiosk wipe tests. The journey is http://127.0.0.1:PORT/session.html,
a foreign origin http://localhost:PORT (same server).

/session.html?then=MODE  first sends test.found with every trace of an earlier session it can
    see (cookies, localStorage, sessionStorage, window.name, IndexedDB, Cache Storage, the
    origin-private file system where WebKit offers it, service worker registrations and the data a live worker holds
    in memory, the controller, the HTTP cache, history entries), then stores MARKER in each of
    them and sends test.stored. Only the first session (the first load of the page) then does
    what MODE says:
      complete      journey.complete
      idle          nothing (the test clicks once, and the idle reset comes)
      crash         nothing (the test kills the web process)
      alert         journey.complete, then alert() in a loop
      beforeunload  a beforeunload trap, then journey.complete (the test clicks first)
      busy          journey.complete, then a loop that never returns
      frame-alert   journey.complete, then a cross-origin frame shows alert() in a loop
      frame-busy    journey.complete, then a cross-origin frame loops for ever
/sw.js        a service worker that keeps what it is sent in memory and caches MARKER
/cached.js    cacheable for an hour; tells which page load it was first served for

Usage: kiosk-wipe-server.py MARKER CLIENT_JS   (prints the port, then serves until killed)
"""
import json
import sys
import threading
import urllib.parse

from fixture_server import FixtureHandler, serve


MARKER = sys.argv[1]
CLIENT = open(sys.argv[2], "rb").read()
LOCK = threading.Lock()
COUNTS = {"session": 0}

SESSION = """<!doctype html><html><head><meta charset="utf-8"><title>Kiosk wipe probe</title>
<script src="/gbgbridge-client.js"></script><script src="/cached.js"></script></head>
<body style="margin:0;font-family:sans-serif">
<div id="catcher" style="position:fixed;inset:0;background:#fee">Session SESSION_NUMBER</div>
<script>
  const SESSION = SESSION_NUMBER;
  const MARKER = "MARKER_VALUE";
  const MODE = new URLSearchParams(location.search).get("then") || "complete";
  const send = (action, data) => window.GBGBridgeClient.send(action, data || {});
  const timeout = (ms, value) => new Promise((resolve) => setTimeout(() => resolve(value), ms));
  const ask = (worker, message) => new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve({ timeout: true }), 2000);
    channel.port1.onmessage = (event) => { clearTimeout(timer); resolve(event.data); };
    worker.postMessage(message, [channel.port2]);
  });

  async function findLeftovers() {
    const found = {};
    const note = (kind, value) => { if (value) found[kind] = String(value); };
    const probe = async (kind, work) => {
      try { note(kind, await Promise.race([work(), timeout(3000, "")])); }
      catch (error) { found[kind + "Error"] = String(error); }
    };
    note("cookie", document.cookie);
    note("requestCookie", REQUEST_COOKIE);
    await probe("localStorage", () => localStorage.getItem("k"));
    await probe("sessionStorage", () => sessionStorage.getItem("k"));
    note("windowName", window.name);
    await probe("indexedDB", async () => (await indexedDB.databases()).map((db) => db.name).join(","));
    await probe("cacheStorage", async () => (await caches.keys()).join(","));
    if (navigator.storage && navigator.storage.getDirectory) await probe("originPrivateFileSystem", async () => {
      const names = [];
      for await (const name of (await navigator.storage.getDirectory()).keys()) names.push(name);
      return names.join(",");
    });
    await probe("serviceWorker", async () =>
      (await navigator.serviceWorker.getRegistrations()).map((registration) => registration.scope).join(","));
    await probe("serviceWorkerMemory", async () => {
      const memories = [];
      for (const registration of await navigator.serviceWorker.getRegistrations()) {
        const worker = registration.active || registration.waiting || registration.installing;
        if (worker) memories.push(JSON.stringify(await ask(worker, {})));
      }
      return memories.join(",");
    });
    note("serviceWorkerController", navigator.serviceWorker.controller && navigator.serviceWorker.controller.scriptURL);
    if (window.cachedForSession !== SESSION) note("httpCache", "cached.js of session " + window.cachedForSession);
    if (history.length > 1) note("history", history.length + " entries");
    return found;
  }

  async function storeEverything() {
    const stored = [];
    const attempt = async (kind, work) => {
      try { await work(); stored.push(kind); } catch (error) { stored.push(kind + ": " + error); }
    };
    document.cookie = "k=" + MARKER + "; max-age=86400; path=/";
    await attempt("localStorage", () => localStorage.setItem("k", MARKER));
    await attempt("sessionStorage", () => sessionStorage.setItem("k", MARKER));
    window.name = MARKER;
    await attempt("indexedDB", () => new Promise((resolve, reject) => {
      const open = indexedDB.open("db-" + MARKER, 1);
      open.onupgradeneeded = () => open.result.createObjectStore("s");
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const transaction = open.result.transaction("s", "readwrite");
        transaction.objectStore("s").put(MARKER, "k");
        transaction.oncomplete = resolve;
        transaction.onerror = () => reject(transaction.error);
      };
    }));
    await attempt("cacheStorage", async () => (await caches.open("c-" + MARKER)).put("/cached", new Response(MARKER)));
    if (navigator.storage && navigator.storage.getDirectory) await attempt("originPrivateFileSystem", async () => {
      const root = await navigator.storage.getDirectory();
      const writable = await (await root.getFileHandle("opfs-" + MARKER, { create: true })).createWritable();
      await writable.write(MARKER);
      await writable.close();
    });
    await attempt("serviceWorker", async () => {
      await navigator.serviceWorker.register("/sw.js");
      const registration = await navigator.serviceWorker.ready;
      const answer = await ask(registration.active, { store: MARKER });
      if (answer.memory !== MARKER) throw new Error("the worker did not keep it: " + JSON.stringify(answer));
    });
    history.pushState({ marker: MARKER }, "", "?then=" + MODE + "&pushed=" + MARKER);
    return stored;
  }

  function act() {
    if (SESSION !== 1) return;
    const frame = (src) => {
      const element = document.createElement("iframe");
      element.src = src;
      document.body.appendChild(element);
    };
    switch (MODE) {
      case "complete": send("journey.complete"); break;
      case "alert": send("journey.complete"); setTimeout(() => { for (;;) alert("Stay " + MARKER); }, 300); break;
      case "busy": send("journey.complete"); setTimeout(() => { for (;;) {} }, 300); break;
      case "frame-alert": send("journey.complete"); frame("FOREIGN/frame-alert.html"); break;
      case "frame-busy": send("journey.complete"); frame("FOREIGN/frame-busy.html"); break;
      case "beforeunload":
        window.addEventListener("beforeunload", (event) => { event.preventDefault(); event.returnValue = "Stay"; });
        document.getElementById("catcher").addEventListener("click", () => send("journey.complete"), { once: true });
        break;
    }
  }

  window.addEventListener("load", async () => {
    const found = await findLeftovers();
    send("test.found", { session: SESSION, found });
    const stored = await storeEverything();
    send("test.stored", { session: SESSION, stored });
    act();
  });
</script></body></html>"""

FRAME_ALERT = """<!doctype html><meta charset="utf-8"><body><script>
  setTimeout(() => { for (;;) alert("Stay in the frame"); }, 300);
</script></body>"""

FRAME_BUSY = """<!doctype html><meta charset="utf-8"><body><script>
  setTimeout(() => { for (;;) {} }, 300);
</script></body>"""

SERVICE_WORKER = """let memory = null;
self.addEventListener("install", (event) => {
  self.skipWaiting();
  event.waitUntil(caches.open("sw-MARKER").then((cache) => cache.put("/sw-cached", new Response("MARKER"))));
});
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("message", (event) => {
  if (event.data && event.data.store) memory = event.data.store;
  event.ports[0].postMessage({ memory });
});"""


class Handler(FixtureHandler):
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        port = self.server.server_address[1]
        headers = [("Cache-Control", "no-store")]
        kind = "text/html; charset=utf-8"
        if url.path == "/gbgbridge-client.js":
            body, kind = CLIENT, "text/javascript"
        elif url.path == "/session.html":
            with LOCK:
                COUNTS["session"] += 1
                session = COUNTS["session"]
            cookie = self.headers.get("Cookie") or ""
            body = (
                SESSION.replace("SESSION_NUMBER", str(session))
                .replace("MARKER_VALUE", MARKER)
                .replace("REQUEST_COOKIE", json.dumps(cookie))
                .replace("FOREIGN", "http://localhost:%d" % port)
                .encode()
            )
            headers.append(("Set-Cookie", "server=%s; Max-Age=86400; Path=/; HttpOnly" % MARKER))
        elif url.path == "/cached.js":
            with LOCK:
                session = COUNTS["session"]
            body, kind = ("window.cachedForSession = %d;" % session).encode(), "text/javascript"
            headers = [("Cache-Control", "public, max-age=3600")]
        elif url.path == "/sw.js":
            body, kind = SERVICE_WORKER.replace("MARKER", MARKER).encode(), "text/javascript"
        elif url.path == "/frame-alert.html":
            body = FRAME_ALERT.encode()
        elif url.path == "/frame-busy.html":
            body = FRAME_BUSY.encode()
        else:
            body = b"<!doctype html><title>elsewhere</title><h1>elsewhere</h1>"
        self.reply(body, kind, headers)


serve(Handler)
