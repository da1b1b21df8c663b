#!/usr/bin/env python3
"""List the C++ functions longer than a limit (issue 12: no function in lib/
over ~80 lines without a reason stated beside it).

A function's length is the lines from its signature's first line to its
closing brace, inclusive. The scanner blanks comments, string and character
literals and preprocessor lines, then tracks braces: a '{' outside any
function whose text since the previous ';', '{' or '}' ends in ')' (possibly
followed by qualifiers or a constructor's initializer list) opens a function;
namespaces, classes and 'extern "C"' are descended into; every other brace
(initializers, enum bodies) is skipped. Lambdas count toward the function
around them.

A function counts as explained when one of the eight lines above its
signature holds a comment with the word 'long' (e.g. "// Long because ...").

  scripts/function-lengths.py [--limit 80] [--all] DIR_OR_FILE...
"""

import argparse
import os
import re
import sys

SOURCE_ENDINGS = ('.cpp', '.cc', '.h', '.hpp', '.c', '.cu', '.hip')
# 'extern "C"' reads 'extern' once its string is blanked.
CONTAINER = re.compile(r'^(?:template\s*<.*>\s*)?(namespace|class|struct|union|'
                       r'extern\s*$)')
ENUM = re.compile(r'^(?:typedef\s+)?enum\b')
QUALIFIERS = re.compile(
    r'\)\s*(?:const|override|final|noexcept(?:\([^()]*\))?|mutable|'
    r'&&|&|->\s*[\w:<>,\s*&]+|\s)*$', re.S)


def blank(text):
    """Text with comments, literals and preprocessor lines replaced by spaces
    (newlines kept, so offsets map to the same lines)."""
    out = list(text)
    i, n = 0, len(text)

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != '\n':
                out[k] = ' '

    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == '#':
            j = i
            while j < n:
                e = text.find('\n', j)
                if e < 0:
                    e = n
                if text[e - 1:e] == '\\':
                    j = e + 1
                    continue
                break
            wipe(i, e)
            i = e
            continue
        if c == '\n':
            at_line_start = True
            i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith('//', i):
            e = text.find('\n', i)
            e = n if e < 0 else e
            wipe(i, e)
            i = e
        elif text.startswith('/*', i):
            e = text.find('*/', i + 2)
            e = n if e < 0 else e + 2
            wipe(i, e)
            i = e
        elif c == 'R' and text.startswith('"', i + 1) and \
                not (i and (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'R"([^(]*)\(', text[i:])
            if not m:
                i += 1
                continue
            end = ')' + m.group(1) + '"'
            e = text.find(end, i + m.end())
            e = n if e < 0 else e + len(end)
            wipe(i, e)
            i = e
        elif c in '"\'':
            if c == "'" and i and text[i - 1].isalnum():
                i += 1  # a digit separator: 1'000
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            wipe(i, j + 1)
            i = j + 1
        else:
            i += 1
    return ''.join(out)


def function_name(header):
    head = header.split('(')[0] if 'operator' not in header else header
    m = re.search(r'operator\s*(\(\)|[^\s(]+)', head)
    if m:
        prefix = re.findall(r'[\w:~]+::\s*$', header[:m.start()])
        return (prefix[0].strip() if prefix else '') + 'operator' + m.group(1)
    words = re.findall(r'[\w:~<>]+', head)
    return words[-1] if words else '?'


def is_function(header):
    h = ' '.join(header.split())
    if not h or '=' in h.split('(')[0] and not h.startswith('operator'):
        # '= {' initializers; but 'auto f = [](...) {' is a lambda.
        if not re.search(r'=\s*\[[^\]]*\]\s*\(.*\)[^()]*$', h):
            return False
    if re.search(r'\)\s*:\s*[\w:]+\s*[({]', h):  # constructor initializers
        return True
    return bool(QUALIFIERS.search(h)) and '(' in h


def scan(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = blank(f.read())
    line_of = [0] * (len(text) + 1)
    line = 1
    for k, ch in enumerate(text):
        line_of[k] = line
        if ch == '\n':
            line += 1
    found = []
    i, n = 0, len(text)
    header_start = 0

    def skip_block(k):
        depth = 0
        while k < n:
            if text[k] == '{':
                depth += 1
            elif text[k] == '}':
                depth -= 1
                if depth == 0:
                    return k
            k += 1
        return n - 1

    while i < n:
        c = text[i]
        if c == ';' or c == '}':
            header_start = i + 1
        elif c == '{':
            header = text[header_start:i]
            h = ' '.join(header.split())
            if CONTAINER.match(h) and '(' not in h.split('{')[0].split(':')[0]:
                header_start = i + 1  # descend
            elif ENUM.match(h) or not is_function(header):
                i = skip_block(i)
                # An initializer's braces inside a constructor's initializer
                # list keep the header going.
                i += 1
                continue
            else:
                end = skip_block(i)
                first = header_start + len(header) - len(header.lstrip())
                start_line = line_of[first]
                found.append((path, start_line, line_of[end],
                              line_of[end] - start_line + 1,
                              function_name(h)))
                i = end + 1
                header_start = i
                continue
        i += 1
    return found


def explained(path, start_line):
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().split('\n')
    above = lines[max(0, start_line - 9):start_line - 1]
    return any('//' in l and re.search(r'\blong\b', l, re.I) for l in above)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('paths', nargs='+')
    ap.add_argument('--limit', type=int, default=80)
    ap.add_argument('--all', action='store_true',
                    help='list every function, not only the long ones')
    args = ap.parse_args()
    files = []
    for p in args.paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, x) for x in names
                          if x.endswith(SOURCE_ENDINGS)]
        else:
            files.append(p)
    rows = []
    for f in sorted(files):
        rows += scan(f)
    rows.sort(key=lambda r: -r[3])
    long_unexplained = 0
    for path, start, end, length, name in rows:
        if not args.all and length <= args.limit:
            continue
        why = explained(path, start)
        long_unexplained += length > args.limit and not why
        print(f'{length:5d}  {path}:{start}-{end}  {name}'
              f'{"  (reason stated)" if why else ""}')
    print(f'{len(rows)} functions, {sum(r[3] > args.limit for r in rows)} over '
          f'{args.limit} lines, {long_unexplained} of those without a reason',
          file=sys.stderr)


if __name__ == '__main__':
    main()
