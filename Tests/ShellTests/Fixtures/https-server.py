#!/usr/bin/env python3
"""Loopback HTTPS server for the --trust-certificate test: serves a journey that sends
test.done, with the certificate and key given (a self-signed one the test made).

Usage: https-server.py CERT KEY CLIENT_JS   (prints the port, then serves until killed)
"""
import http.server
import signal
import ssl
import sys

signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
signal.signal(signal.SIGTERM, signal.SIG_DFL)
CERT, KEY, CLIENT = sys.argv[1], sys.argv[2], open(sys.argv[3], "rb").read()
PAGE = b"""<!doctype html><html><head><meta charset="utf-8"><title>TLS journey</title>
<script src="/gbgbridge-client.js"></script></head><body><h1>Trusted</h1>
<script>window.GBGBridgeClient.send("test.done", { secure: location.protocol });</script></body></html>"""


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body, kind = (CLIENT, "text/javascript") if self.path.startswith("/gbgbridge-client.js") else (PAGE, "text/html")
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(CERT, KEY)
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
