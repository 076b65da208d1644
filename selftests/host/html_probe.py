#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""html_probe.py PAGE OUTDIR: drive the HTML report in headless Chromium.

Chromium runs headless with its DevTools protocol on a local port; this
script (stdlib only: a minimal WebSocket client) opens PAGE, then reports
what a person would see and get, one "key=value" line each, for
selftests/host/report_html_test.c to assert on:

  load_ms, redraw_ms                     page load with its first drawing; one
                                         redraw of every plot (Zoom in)
  console_errors, console=<message>   console output, CSP refusals, exceptions
  requests, request=<url>                what the page tried to load (but itself)
  plots, xticks, yticks, zero_lines, legend=<text>, slice_labels,
  slice_label=<text>, marker_labels, readout_before, t0, t1
                                         the page as loaded
  screenshot                             OUTDIR/shot.png
  readout                                after the pointer moves over a plot
  zoom_t0, zoom_t1                       after one wheel notch over a plot
  pan_t0, pan_t1                         after a shift+drag
  selection                              after a drag across a plot
  slice_selection, slice_click_t0/t1     after a click on the first slice (a run
                                         of slices too narrow to draw alone zooms)
  proc_label=<text>, lane_label=<text>   the slice lanes' process and thread names
  slice_at=<name>@<y>                    each slice drawn alone, and its row's y
  folded_label, folded_slices            after a click on the first thread's name
  proc_folded_lanes                      after a click on the first process's name
"""
import base64
import json
import os
import socket
import struct
import subprocess
import sys
import time

FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--remote-debugging-port=0']


class Socket:
    """The client side of RFC 6455, as much as DevTools needs."""

    def __init__(self, port, path):
        self.s = socket.create_connection(('127.0.0.1', port), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(('GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n'
                        'Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n'
                        'Sec-WebSocket-Version: 13\r\n\r\n' % (path, port, key)).encode())
        head = b''
        while b'\r\n\r\n' not in head:
            head += self.s.recv(1)
        if b' 101 ' not in head.split(b'\r\n')[0]:
            raise RuntimeError('no websocket: %r' % head)

    def _read(self, n):
        b = b''
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise RuntimeError('devtools closed the connection')
            b += c
        return b

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x81])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack('>H', n)
        else:
            head += bytes([0x80 | 127]) + struct.pack('>Q', n)
        self.s.sendall(head + mask + bytes(b ^ mask[k % 4] for k, b in enumerate(data)))

    def recv(self):
        msg = b''
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7f
            if n == 126:
                n = struct.unpack('>H', self._read(2))[0]
            elif n == 127:
                n = struct.unpack('>Q', self._read(8))[0]
            payload = self._read(n)
            if b0 & 0x0f in (0x1, 0x0):
                msg += payload
                if b0 & 0x80:
                    return msg.decode()


class Page:
    def __init__(self, ws):
        self.ws, self.next_id, self.session, self.events = ws, 0, None, []

    def call(self, method, params=None, session=True):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        self.ws.send(json.dumps(msg))
        while True:
            r = json.loads(self.ws.recv())
            if r.get('id') == self.next_id:
                if 'error' in r:
                    raise RuntimeError('%s: %s' % (method, r['error']))
                return r.get('result', {})
            self.events.append(r)

    def wait_event(self, name, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            for e in self.events:
                if e.get('method') == name:
                    self.events.remove(e)
                    return e
            self.events.append(json.loads(self.ws.recv()))
        raise RuntimeError('no %s' % name)

    def js(self, expr):
        r = self.call('Runtime.evaluate', {'expression': expr, 'returnByValue': True})
        return r.get('result', {}).get('value')

    def mouse(self, kind, x, y, **kw):
        p = {'type': kind, 'x': x, 'y': y}
        p.update(kw)
        self.call('Input.dispatchMouseEvent', p)


def console_messages(events):
    out = []
    for e in events:
        m, p = e.get('method'), e.get('params', {})
        if m == 'Runtime.consoleAPICalled':
            out.append(' '.join(str(a.get('value', a.get('description', ''))) for a in p['args']))
        elif m == 'Runtime.exceptionThrown':
            out.append('exception: ' + p['exceptionDetails'].get('text', ''))
        elif m == 'Log.entryAdded':
            out.append('%s: %s' % (p['entry'].get('level'), p['entry'].get('text')))
    return out


def interact(pg, out):
    """Point, wheel, shift+drag, drag and click as a person would."""
    pg.call('Runtime.evaluate', {'expression': "document.getElementById('pp-plot-power')"
                                 ".scrollIntoView({block: 'center'})"})
    box = json.loads(pg.js("JSON.stringify(document.getElementById('pp-plot-power')"
                           ".getBoundingClientRect())"))
    x, y = box['left'] + box['width'] * 0.5, box['top'] + box['height'] * 0.5
    pg.mouse('mouseMoved', x, y)
    out['readout'] = pg.js("document.getElementById('pp-readout').textContent")
    pg.mouse('mouseWheel', x, y, deltaX=0, deltaY=-120)
    out['zoom_t0'] = pg.js("document.getElementById('pp-plots').getAttribute('data-t0')")
    out['zoom_t1'] = pg.js("document.getElementById('pp-plots').getAttribute('data-t1')")
    pg.mouse('mousePressed', x, y, button='left', buttons=1, clickCount=1, modifiers=8)
    pg.mouse('mouseMoved', x + 100, y, button='left', buttons=1, modifiers=8)
    pg.mouse('mouseReleased', x + 100, y, button='left', buttons=0, clickCount=1, modifiers=8)
    out['pan_t0'] = pg.js("document.getElementById('pp-plots').getAttribute('data-t0')")
    out['pan_t1'] = pg.js("document.getElementById('pp-plots').getAttribute('data-t1')")
    pg.call('Runtime.evaluate', {'expression': "document.getElementById('pp-reset').click()"})
    pg.mouse('mousePressed', x - 200, y, button='left', buttons=1, clickCount=1)
    pg.mouse('mouseMoved', x - 50, y, button='left', buttons=1)
    pg.mouse('mouseReleased', x - 50, y, button='left', buttons=0, clickCount=1)
    out['selection'] = pg.js("document.getElementById('pp-selection').textContent")
    pg.call('Runtime.evaluate', {'expression': "document.querySelector('.pp-lane')"
                                 ".scrollIntoView({block: 'center'})"})
    sl = pg.js("(function () { var r = document.querySelector('.pp-slice');"
               " return r ? JSON.stringify(r.getBoundingClientRect()) : null; })()")
    if sl:
        r = json.loads(sl)
        cx, cy = r['left'] + r['width'] / 2, r['top'] + r['height'] / 2
        pg.mouse('mousePressed', cx, cy, button='left', buttons=1, clickCount=1)
        pg.mouse('mouseReleased', cx, cy, button='left', buttons=0, clickCount=1)
        out['slice_selection'] = pg.js("document.getElementById('pp-selection').textContent")
        out['slice_click_t0'] = pg.js("document.getElementById('pp-plots').getAttribute('data-t0')")
        out['slice_click_t1'] = pg.js("document.getElementById('pp-plots').getAttribute('data-t1')")

def fold(pg, out):
    """Click the first thread's name, then the first process's: they fold."""
    click = ("(function (sel) { var e = document.querySelector(sel); if (!e) return false;"
             " e.dispatchEvent(new MouseEvent('click', {bubbles: true})); return true; })")
    if not pg.js(click + "('.pp-lane-label')"):
        return
    out['folded_label'] = pg.js("document.querySelector('.pp-lane-label').textContent")
    out['folded_slices'] = pg.js("document.querySelectorAll('.pp-slice').length")
    pg.js(click + "('.pp-lane-label')")
    pg.js(click + "('.pp-proc-label')")
    out['proc_folded_lanes'] = pg.js("document.querySelectorAll('.pp-lane-label').length")


def main():
    page_path, outdir = os.path.abspath(sys.argv[1]), sys.argv[2]
    profile = os.path.join(outdir, 'profile')
    proc = subprocess.Popen(['chromium'] + FLAGS + ['--user-data-dir=' + profile, 'about:blank'],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(outdir, 'chromium.log'), 'w'))
    try:
        port_file = os.path.join(profile, 'DevToolsActivePort')
        for _ in range(600):
            if os.path.exists(port_file) and len(open(port_file).read().split()) >= 2:
                break
            time.sleep(0.1)
        port, path = open(port_file).read().split()[:2]
        pg = Page(Socket(int(port), path))
        target = pg.call('Target.createTarget', {'url': 'about:blank'})['targetId']
        pg.session = pg.call('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
        for domain in ('Runtime', 'Log', 'Page', 'Network'):
            pg.call(domain + '.enable')
        pg.call('Emulation.setDeviceMetricsOverride',
                {'width': 1000, 'height': 1700, 'deviceScaleFactor': 1, 'mobile': False})
        pg.call('Page.navigate', {'url': 'file://' + page_path})
        pg.wait_event('Page.loadEventFired')
        out = {'load_ms': pg.js('Math.round(performance.now())')}
        time.sleep(0.3)
        facts = pg.js("""JSON.stringify({
            plots: document.querySelectorAll('svg.pp-plot').length,
            xticks: document.querySelectorAll('.pp-xtick').length,
            yticks: document.querySelectorAll('.pp-ytick').length,
            zero_lines: document.querySelectorAll('.pp-zero').length,
            legend: Array.from(document.querySelectorAll('.pp-legend-item')).map(e => e.textContent),
            slice_labels: document.querySelectorAll('.pp-slice-label').length,
            slice_label: Array.from(document.querySelectorAll('.pp-slice-label')).map(e => e.textContent),
            marker_labels: document.querySelectorAll('.pp-marker-label').length,
            proc_label: Array.from(document.querySelectorAll('.pp-proc-label')).map(e => e.textContent),
            lane_label: Array.from(document.querySelectorAll('.pp-lane-label')).map(e => e.textContent),
            slice_at: Array.from(document.querySelectorAll('.pp-slice[data-slice]')).map(
                e => e.querySelector('title').textContent.split(':')[0] + '@' + e.getAttribute('y')),
            readout_before: document.getElementById('pp-readout').textContent,
            t0: document.getElementById('pp-plots').getAttribute('data-t0'),
            t1: document.getElementById('pp-plots').getAttribute('data-t1')})""")
        facts = json.loads(facts) if facts else {}
        for k, v in facts.items():
            if isinstance(v, list):
                for item in v:
                    print('%s=%s' % (k, item))
            else:
                out[k] = v
        shot = pg.call('Page.captureScreenshot', {'format': 'png'})['data']
        with open(os.path.join(outdir, 'shot.png'), 'wb') as f:
            f.write(base64.b64decode(shot))
        out['screenshot'] = os.path.join(outdir, 'shot.png')

        if facts.get('plots'):
            out['redraw_ms'] = pg.js("(function () { var t = performance.now();"
                                     " document.getElementById('pp-zoom-in').click();"
                                     " document.getElementById('pp-reset').click();"
                                     " return ((performance.now() - t) / 2).toFixed(1); })()")
            interact(pg, out)
            pg.call('Runtime.evaluate', {'expression': "document.getElementById('pp-reset').click()"})
            fold(pg, out)
        time.sleep(0.2)
        pg.js('0')
        msgs = console_messages(pg.events)
        out['console_errors'] = len(msgs)
        urls = [e['params']['request']['url'] for e in pg.events
                if e.get('method') == 'Network.requestWillBeSent']
        urls = [u for u in urls if u != 'file://' + page_path and not u.startswith('about:')]
        out['requests'] = len(urls)
        for u in urls:
            print('request=%s' % u)
        for m in msgs:
            print('console=%s' % m.replace('\n', ' '))
        for k, v in out.items():
            print('%s=%s' % (k, v))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == '__main__':
    main()
