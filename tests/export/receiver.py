#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A test receiver for lfr's exports: an HTTP server on 127.0.0.1 that keeps every request.

    receiver.py DIR [--fail N] [--status CODE] [--hang | --endless | --redirect URL]

Listens on a free port of 127.0.0.1 and writes it to DIR/port once it accepts (the test's
handshake).  Every POST is kept as DIR/req-NNNNNN.json (method, path, query, headers) and
DIR/req-NNNNNN.body (the body as it came).  The answer: CODE (default 200) for every request, the
first N answered 503 when --fail N; the file DIR/status, when present, holds the code to answer
instead (the test turns the backend "down" and "up" with it).  A 2xx answer to /v1development/profiles
is an empty ExportProfilesServiceResponse.  Hostile ones: --hang keeps every request and never
answers; --endless answers 200 with a body that does not end; --redirect answers 302 to URL.
"""
import argparse
import http.server
import json
import os
import socketserver
import sys
import threading


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--fail", type=int, default=0)
    ap.add_argument("--status", type=int, default=200)
    ap.add_argument("--hang", action="store_true")
    ap.add_argument("--endless", action="store_true")
    ap.add_argument("--redirect")
    a = ap.parse_args()
    lock = threading.Lock()
    count = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(n)
            with lock:
                count[0] += 1
                seq = count[0]
            code = a.status
            try:
                with open(os.path.join(a.dir, "status")) as f:
                    code = int(f.read().strip())
            except (OSError, ValueError):
                if seq <= a.fail:
                    code = 503
            path, _, query = self.path.partition("?")
            meta = {"seq": seq, "path": path, "query": query, "code": code,
                    "headers": {k.lower(): v for k, v in self.headers.items()}}
            base = os.path.join(a.dir, "req-%06d" % seq)
            with open(base + ".body", "wb") as f:
                f.write(body)
            with open(base + ".json.tmp", "w") as f:
                json.dump(meta, f)
            os.rename(base + ".json.tmp", base + ".json")
            if a.hang:
                threading.Event().wait()
            if a.endless:
                self.send_response(200)
                self.end_headers()
                try:
                    while True:
                        self.wfile.write(b"x" * 65536)
                except OSError:
                    return
            if a.redirect:
                self.send_response(302)
                self.send_header("Location", a.redirect)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            reply = b"" if code < 300 else b"backend unavailable\n"
            self.send_response(code)
            self.send_header("Content-Length", str(len(reply)))
            self.send_header("Content-Type", "application/x-protobuf" if code < 300 else "text/plain")
            self.end_headers()
            self.wfile.write(reply)

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True

    srv = Server(("127.0.0.1", 0), Handler)
    with open(os.path.join(a.dir, "port.tmp"), "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(os.path.join(a.dir, "port.tmp"), os.path.join(a.dir, "port"))
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
