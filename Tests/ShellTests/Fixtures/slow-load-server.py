#!/usr/bin/env python3
"""Loopback server for a journey that talks before its load finishes: the page sends test.loaded
at once, while one of its images takes 20 seconds to arrive, so the page's load is still going.

Usage: slow-load-server.py CLIENT_JS   (prints the port, then serves until killed)
"""
import sys
import time

from fixture_server import FixtureHandler, serve

CLIENT = open(sys.argv[1], "rb").read()

PAGE = b"""<!doctype html>
<html><head><meta charset="utf-8"><title>Still loading</title>
<script src="/gbgbridge-client.js"></script></head>
<body><h1>This journey talks before its load finishes</h1>
<img src="/slow.png" alt="">
<script>window.GBGBridgeClient.send("test.loaded", { at: Date.now() });</script>
</body></html>"""


class Handler(FixtureHandler):
    def do_GET(self):
        if self.path.startswith("/gbgbridge-client.js"):
            self.reply(CLIENT, "text/javascript")
        elif self.path.startswith("/slow.png"):
            time.sleep(20)
            self.reply(b"", "image/png")
        else:
            self.reply(PAGE, "text/html; charset=utf-8")


serve(Handler)
