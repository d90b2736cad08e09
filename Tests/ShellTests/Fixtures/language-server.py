#!/usr/bin/env python3
"""Loopback server for the shell's language tests: one journey page that sends test.done with
the Accept-Language header of its request and the page's navigator.language(s).

Usage: language-server.py CLIENT_JS   (prints the port, then serves until killed)
"""
import json
import sys

from fixture_server import FixtureHandler, serve

CLIENT = open(sys.argv[1], "rb").read()

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Language probe</title>
<script src="/gbgbridge-client.js"></script></head>
<body><h1>Language probe</h1>
<script>
  window.GBGBridgeClient.send("test.done", {
    acceptLanguage: ACCEPT_LANGUAGE,
    language: navigator.language,
    languages: Array.from(navigator.languages),
  });
</script></body></html>"""


class Handler(FixtureHandler):
    def do_GET(self):
        if self.path.startswith("/gbgbridge-client.js"):
            body, kind = CLIENT, "text/javascript"
        else:
            header = self.headers.get("Accept-Language") or ""
            body = PAGE.replace("ACCEPT_LANGUAGE", json.dumps(header)).encode()
            kind = "text/html; charset=utf-8"
        self.reply(body, kind)


serve(Handler)
