"""What the shell tests' local HTTP servers share: a quiet handler that answers with a body, and a
server on a free loopback port that prints the port and ends on SIGTERM (which the test runner may
have left blocked)."""

import http.server
import signal


class FixtureHandler(http.server.BaseHTTPRequestHandler):
    """A request handler that answers with `reply` and logs nothing."""

    def reply(self, body, kind, headers=()):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve(handler):
    """Serves `handler` on 127.0.0.1 at a free port, printed first, until SIGTERM."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
