#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A debuginfod server for the tests: answers the protocol's three requests from a directory,

    GET /buildid/ID/executable          DIR/ID/executable
    GET /buildid/ID/debuginfo           DIR/ID/debuginfo
    GET /buildid/ID/source/ABS/PATH     DIR/ID/source/ABS/PATH

and 404 for anything else, on 127.0.0.1 at a free port that it writes to PORT_FILE once it
listens. Every request's path is appended to LOG_FILE, so that a test can say what was asked.
Usage: debuginfod_server.py DIR PORT_FILE LOG_FILE"""
import http.server
import os
import sys
import urllib.parse

root, port_file, log_file = sys.argv[1:4]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path = urllib.parse.unquote(self.path)
        with open(log_file, "a") as log:
            log.write(path + "\n")
        parts = path.split("/", 4)  # "", "buildid", ID, kind, rest
        file = None
        if len(parts) >= 4 and parts[1] == "buildid" and parts[3] in ("executable", "debuginfo"):
            file = os.path.join(root, parts[2], parts[3])
        elif len(parts) == 5 and parts[1] == "buildid" and parts[3] == "source":
            file = os.path.join(root, parts[2], "source", parts[4].lstrip("/"))
        if not file or ".." in path or not os.path.isfile(file):
            self.send_error(404)
            return
        data = open(file, "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
