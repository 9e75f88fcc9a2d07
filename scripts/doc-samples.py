#!/usr/bin/env python3
"""Refresh the samples of README.md and docs/*.md: each block after a mark

  <!-- sample: KIND [lines=RANGES] COMMAND -->

becomes what COMMAND prints now (tests/test_docs.c runs each command
itself and checks the block). KIND is
  stdout, stderr  COMMAND is `emu ARGS...` (split at spaces), run as
                  build/emu/emu; the block is that stream
  sh              COMMAND runs under /bin/sh -c with build/emu first in
                  PATH; the block is its stdout and stderr, in one pipe
  gdb             COMMAND is `EMU-RUN-ARGS ; GDB-CMD ; GDB-CMD ...`: emu run
                  -S --gdb 127.0.0.1:0 EMU-RUN-ARGS, and Debian's gdb in batch
                  mode on the kernel image emu names, attached, with the
                  symbols of the first argument under build/guest/programs/;
                  the block is each command as `(gdb) CMD` then what gdb
                  printed for it
lines=RANGES (1-5,20-24,30-: 1-based, inclusive) keeps those lines of the
output; each run of lines left out becomes one line "(… N lines cut)".
Run from the source tree after `make`:
  scripts/doc-samples.py FILE...
"""
import os
import re
import subprocess
import sys

MARK = re.compile(r'<!-- sample: (\S+) (.*?) -->\n```\n(.*?)```\n', re.S)
EMU = 'build/emu/emu'
GDB_PROMPT = '(gdb) '


def run_emu(stream, args):
    words = args.split(' ')
    if words[0] != 'emu':
        sys.exit('doc-samples: a %s sample runs emu, not %s' % (stream, words[0]))
    r = subprocess.run([EMU] + words[1:], capture_output=True, text=True)
    return r.stdout if stream == 'stdout' else r.stderr


def run_sh(command):
    env = dict(os.environ, PATH=os.path.abspath('build/emu') + ':' + os.environ['PATH'])
    r = subprocess.run(['/bin/sh', '-c', command], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env)
    return r.stdout


def run_gdb(spec):
    parts = spec.split(' ; ')
    emu_args = parts[0].split(' ')
    cmds = parts[1:]
    emu = subprocess.Popen([EMU, 'run', '-S', '--gdb', '127.0.0.1:0'] + emu_args,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    first = emu.stderr.readline()
    m = re.search(r'port (\d+).*kernel symbols: ([^)]+)\)', first)
    if not m:
        emu.kill()
        sys.exit('doc-samples: emu said: ' + first)
    argv = ['gdb', '-nx', '-batch', 'build/guest/' + m.group(2),
            '-ex', 'target remote 127.0.0.1:' + m.group(1)]
    progs = [a for a in emu_args if a.startswith('build/guest/programs/')]
    if progs:
        argv += ['-ex', 'add-symbol-file ' + progs[0]]
    for c in cmds:
        argv += ['-ex', 'echo ' + GDB_PROMPT + c + '\\n', '-ex', c]
    env = dict(os.environ, DEBUGINFOD_URLS='')
    out = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env=env, timeout=60).stdout
    emu.communicate(timeout=60)
    start = out.find(GDB_PROMPT + cmds[0] + '\n')
    return out[start:] if start >= 0 else out


def cut(text, ranges):
    """Keep the lines RANGES names; a line says how many each gap left out."""
    lines = text.rstrip('\n').split('\n')
    if not ranges:
        return lines
    keep = []
    for r in ranges.split(','):
        a, _, b = r.partition('-')
        keep.append((int(a), int(b) if b else len(lines)))
    out, at = [], 1
    for a, b in keep:
        if a > at:
            out.append('(… %d lines cut)' % (a - at))
        out += lines[a - 1:b]
        at = b + 1
    if at <= len(lines):
        out.append('(… %d lines cut)' % (len(lines) - at + 1))
    return out


def sample(kind, rest):
    ranges = ''
    if rest.startswith('lines='):
        ranges, _, rest = rest.partition(' ')
        ranges = ranges[len('lines='):]
    if kind in ('stdout', 'stderr'):
        text = run_emu(kind, rest)
    elif kind == 'sh':
        text = run_sh(rest)
    elif kind == 'gdb':
        text = run_gdb(rest)
    else:
        sys.exit('doc-samples: unknown sample kind ' + kind)
    return '\n'.join(cut(text, ranges)) + '\n'


def refresh(m):
    block = sample(m.group(1), m.group(2))
    return m.group(0)[:m.start(3) - m.start(0)] + block + '```\n'


for path in sys.argv[1:]:
    text = open(path).read()
    new = MARK.sub(refresh, text)
    if new != text:
        open(path, 'w').write(new)
        print('refreshed ' + path)
