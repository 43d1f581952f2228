#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# debuginfod_server.py MODE PORT-FILE LOG [FILE]: a debuginfod server on loopback that misbehaves,
# for tests/report/debuginfod.  It answers GET /buildid/HEX/debuginfo (anything else: 404),
# writes the port it listens on to PORT-FILE and one line per request to LOG (the path and the
# X-DEBUGINFOD-MAXSIZE header libdebuginfod sent), and:
#   trickle   announces 3 MB and sends 15 KB every 0.1 s (150 KB/s, faster than libdebuginfod's
#             DEBUGINFOD_TIMEOUT gives up on: 100 KiB/s)
#   file      sends FILE (a wrong debug file) with its length
#   announce  announces 2 GiB and sends 4 KB of it
#   unsized   sends 4 MiB without a length (the connection's end ends it)
#   gzip      sends 64 MiB of zeros gzip-compressed (about 64 KB), without a length
import gzip
import http.server
import os
import sys
import time

mode, port_file, log = sys.argv[1], sys.argv[2], sys.argv[3]
body = open(sys.argv[4], 'rb').read() if mode == 'file' else b''
if mode == 'gzip':
    body = gzip.compress(bytes(64 << 20), compresslevel=9)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.0'  # a body without a length ends with the connection

    def log_message(self, *args):
        pass

    def do_GET(self):
        with open(log, 'a') as f:
            f.write('%s maxsize=%s\n' % (self.path, self.headers.get('X-DEBUGINFOD-MAXSIZE')))
        parts = self.path.split('/')
        if len(parts) != 4 or parts[1] != 'buildid' or parts[3] != 'debuginfo':
            self.send_error(404)
            return
        try:
            self.send_response(200)
            if mode == 'trickle':
                self.send_header('Content-Length', str(3000000))
                self.end_headers()
                for _ in range(200):
                    self.wfile.write(b'\x7fELF' + bytes(15000 - 4))
                    self.wfile.flush()
                    time.sleep(0.1)
            elif mode == 'file':
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif mode == 'announce':
                self.send_header('Content-Length', str(2 << 30))
                self.end_headers()
                self.wfile.write(b'\x7fELF' + bytes(4092))
                self.wfile.flush()
                time.sleep(120)
            elif mode == 'unsized':
                self.end_headers()
                for _ in range(64):
                    self.wfile.write(bytes(64 << 10))
            elif mode == 'gzip':
                self.send_header('Content-Encoding', 'gzip')
                self.end_headers()
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
srv.daemon_threads = True
with open(port_file + '.tmp', 'w') as f:
    f.write('%d\n' % srv.server_address[1])
os.rename(port_file + '.tmp', port_file)
srv.serve_forever()
