#!/usr/bin/env python3
"""Refresh README.md's samples: each block after a
<!-- sample: stdout|stderr emu ARGS... --> mark becomes the first lines of
what build/emu/emu ARGS prints now, as many lines as the block had, or all
(tests/test_docs.c checks them). Run from the source tree after `make`."""
import re
import subprocess
import sys

MARK = re.compile(r'<!-- sample: (stdout|stderr) emu (.*?) -->\n```\n(.*?)\n```\n', re.S)


def refresh(m):
    stream, args, block = m.group(1), m.group(2).split(' '), m.group(3)
    run = subprocess.run(['build/emu/emu'] + args, capture_output=True, text=True)
    got = (run.stdout if stream == 'stdout' else run.stderr).rstrip('\n').split('\n')
    n = block.count('\n') + 1
    return m.group(0).replace(block, '\n'.join(got[:n]), 1)


path = sys.argv[1] if len(sys.argv) > 1 else 'README.md'
text = open(path).read()
open(path, 'w').write(MARK.sub(refresh, text))
