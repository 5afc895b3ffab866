#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A simulated Roku device for the capture tests: the two ways a device hands out BrightScript
profiler data, as Roku documents them.

  network   GET /bsprof/channel.bsprof streams DATA while "the channel runs": in pieces of
            --chunk bytes, --delay seconds apart, then closes the connection ("channel exit").
            --drop-at N announces the whole length but closes the connection after N bytes
            (every byte sent arrives: a reset could discard some in the client's kernel);
            --stall-at N sends N bytes and then nothing more, keeping the connection open
            until the client leaves.
  local     the developer web server, HTTP digest authentication (user rokudev, --password):
            POST /plugin_inspect with the form field mysubmit=dloadProf answers a page saying
            "Profiling data ready", or "No profiling data available" with --no-data; then
            GET /pkgs/channel.bsprof answers DATA.

The server listens on 127.0.0.1 on a free port, writes the port to --port-file once it
listens, appends one line per request to --log ("METHOD PATH auth=yes|no|bad field=VALUE"),
and touches --sent-file once a stalled stream has sent its bytes. It runs until killed.
"""
import argparse
import hashlib
import http.server
import os
import re
import secrets
import socket
import sys
import threading
import time

REALM = "rokudev"
USER = "rokudev"


def md5(text):
    return hashlib.md5(text.encode()).hexdigest()


def parse_digest(header):
    if not header or not header.startswith("Digest "):
        return None
    fields = {}
    for m in re.finditer(r'(\w+)=(?:"([^"]*)"|([^,\s]+))', header[len("Digest "):]):
        fields[m.group(1)] = m.group(2) if m.group(2) is not None else m.group(3)
    return fields


class Device(http.server.BaseHTTPRequestHandler):
    server_version = "RokuSimulated/1.0"
    options = None
    nonces = set()
    lock = threading.Lock()

    def log_message(self, fmt, *args):
        pass

    def log_request_line(self, auth, field=""):
        if self.options.log:
            with self.lock, open(self.options.log, "a") as f:
                f.write(f"{self.command} {self.path} auth={auth} field={field}\n")

    # ---- the network stream ------------------------------------------------------------------
    def stream(self):
        data = self.options.payload
        opts = self.options
        self.log_request_line("no")
        # The device's answer: a header, then the data as the channel produces it, and the
        # connection closed at channel exit (no length is known in advance).
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if opts.drop_at is not None:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.flush()
        end = len(data)
        if opts.drop_at is not None:
            end = opts.drop_at
        if opts.stall_at is not None:
            end = opts.stall_at
        sent = 0
        while sent < end:
            piece = data[sent:min(end, sent + opts.chunk)]
            self.wfile.write(piece)
            self.wfile.flush()
            sent += len(piece)
            if sent < end and opts.delay:
                time.sleep(opts.delay)
        if opts.drop_at is not None:
            # The connection ends short of the length announced.
            self.connection.shutdown(socket.SHUT_WR)
            self.close_connection = True
            return
        if opts.stall_at is not None:
            if opts.sent_file:
                with open(opts.sent_file, "w") as f:
                    f.write(str(sent))
            # Nothing more until the client goes away.
            self.connection.settimeout(None)
            try:
                while self.connection.recv(1):
                    pass
            except OSError:
                pass
            self.close_connection = True
            return
        self.close_connection = True

    # ---- the developer web server -------------------------------------------------------------
    def challenge(self):
        nonce = secrets.token_hex(16)
        with self.lock:
            self.nonces.add(nonce)
        body = b"<html><body>401 Unauthorized</body></html>"
        self.send_response(401)
        self.send_header("WWW-Authenticate",
                         f'Digest realm="{REALM}", qop="auth", nonce="{nonce}", '
                         f'opaque="{secrets.token_hex(8)}", algorithm=MD5')
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def authorized(self):
        """'yes', 'no' (no credentials) or 'bad' (wrong ones)."""
        fields = parse_digest(self.headers.get("Authorization"))
        if fields is None:
            return "no"
        with self.lock:
            known = fields.get("nonce") in self.nonces
        if not known or fields.get("username") != USER or fields.get("realm") != REALM:
            return "bad"
        ha1 = md5(f"{USER}:{REALM}:{self.options.password}")
        ha2 = md5(f"{self.command}:{fields.get('uri', '')}")
        if fields.get("qop") == "auth":
            want = md5(f"{ha1}:{fields['nonce']}:{fields.get('nc', '')}:"
                       f"{fields.get('cnonce', '')}:auth:{ha2}")
        else:
            want = md5(f"{ha1}:{fields['nonce']}:{ha2}")
        return "yes" if fields.get("response") == want else "bad"

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def send_page(self, status, text, content_type="text/html"):
        body = text if isinstance(text, bytes) else text.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.body()
        auth = self.authorized()
        field = ""
        m = re.search(rb'name="mysubmit"\r\n\r\n([^\r]*)\r\n', body)
        if m:
            field = m.group(1).decode(errors="replace")
        self.log_request_line(auth, field)
        if self.options.mode != "local" or self.path != "/plugin_inspect":
            return self.send_page(404, "not found")
        if auth != "yes":
            return self.challenge()
        if field != "dloadProf":
            return self.send_page(200, "<html><body>Utilities</body></html>")
        if self.options.no_data:
            message = "No profiling data available"
        else:
            message = 'Profiling data ready: <a href="pkgs/channel.bsprof">channel.bsprof</a>'
        self.send_page(200, "<html><body><div><font color=\"red\">" + message +
                       "</font></div></body></html>")

    def do_GET(self):
        if self.options.mode == "network":
            if self.path != "/bsprof/channel.bsprof":
                self.log_request_line("no")
                return self.send_page(404, "not found")
            return self.stream()
        auth = self.authorized()
        self.log_request_line(auth)
        if self.path != "/pkgs/channel.bsprof":
            return self.send_page(404, "not found")
        if auth != "yes":
            return self.challenge()
        self.send_page(200, self.options.payload, "application/octet-stream")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["network", "local"])
    parser.add_argument("data", help="the .bsprof bytes the device hands out")
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log")
    parser.add_argument("--chunk", type=int, default=65536)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--drop-at", type=int)
    parser.add_argument("--stall-at", type=int)
    parser.add_argument("--sent-file")
    parser.add_argument("--password", default="secret")
    parser.add_argument("--no-data", action="store_true")
    options = parser.parse_args()
    with open(options.data, "rb") as f:
        options.payload = f.read()
    Device.options = options
    # The web server keeps connections open (digest authentication answers on the same one);
    # the stream is closed at channel exit.
    Device.protocol_version = "HTTP/1.1" if options.mode == "local" else "HTTP/1.0"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Device)
    server.daemon_threads = True
    tmp = options.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, options.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
