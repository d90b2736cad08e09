#!/usr/bin/env python3
"""Loopback server for the shell's privacy tests: one journey page that reports what the
browser kept from an earlier visit (localStorage, a JavaScript cookie, the cookie the server
set), then stores all three again and sends test.done (journey.complete for /?complete).

Usage: storage-server.py CLIENT_JS   (prints the port, then serves until killed)
"""
import json
import sys

from fixture_server import FixtureHandler, serve

CLIENT = open(sys.argv[1], "rb").read()

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Storage probe</title>
<script src="/gbgbridge-client.js"></script></head>
<body style="font-family: sans-serif"><h1>Storage probe</h1>
<script>
  const before = {
    storage: localStorage.getItem("visit"),
    documentCookie: document.cookie,
    requestCookie: REQUEST_COOKIE,
  };
  localStorage.setItem("visit", "1");
  document.cookie = "js=1; max-age=86400; path=/";
  // Give WebKit time to write storage and cookies out before the run ends.
  // With ?complete the page ends its journey instead (for kiosk mode).
  const action = location.search.includes("complete") ? "journey.complete" : "test.done";
  setTimeout(() => window.GBGBridgeClient.send(action, before), 1500);
</script></body></html>"""


class Handler(FixtureHandler):
    def do_GET(self):
        if self.path.startswith("/gbgbridge-client.js"):
            body, kind = CLIENT, "text/javascript"
            headers = []
        else:
            cookie = self.headers.get("Cookie") or ""
            body = PAGE.replace("REQUEST_COOKIE", json.dumps(cookie)).encode()
            kind = "text/html; charset=utf-8"
            headers = [("Set-Cookie", "server=1; Max-Age=86400; Path=/")]
        self.reply(body, kind, headers)


serve(Handler)
