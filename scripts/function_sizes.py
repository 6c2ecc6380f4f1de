#!/usr/bin/env python3
"""Lists the functions of C++ sources longer than a limit, and checks them
against an allowlist that can only shrink.

Length is counted as clang-tidy's readability-function-size counts it
(LineThreshold, .clang-tidy): line of the body's closing brace minus line of
its opening brace. A function's lambdas and local classes belong to it.

This is a small C++ scanner, not a compiler: it blanks comments, string and
character literals and preprocessor lines, then matches braces. A brace block
at namespace or class scope whose head has a parameter list is a function
body; constructor initializer lists, `= ...` initializers and brace
initializers are recognised. It needs no build (clang-tidy needs
compile_commands.json and minutes per file on two cores) and reads src/ in
well under a second.

  function_sizes.py [--limit N] [--allowlist FILE] PATH...   check (exit 1 on failure)
  function_sizes.py --list [--limit N] PATH...                print "file name lines"
"""
import argparse
import os
import re
import sys

IDENT = re.compile(r'[A-Za-z0-9_]')


def blank(text):
    """Comments, literals and preprocessor lines become spaces; newlines stay."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in ' \t':
            out.append(c)
            i += 1
            continue
        if line_start and c == '#':  # preprocessor directive, with continuations
            while i < n and text[i] != '\n':
                if text[i] == '\\' and i + 1 < n and text[i + 1] == '\n':
                    out.append(' \n')
                    i += 2
                    continue
                out.append(' ')
                i += 1
            continue
        line_start = False
        if c == '\n':
            line_start = True
            out.append(c)
            i += 1
        elif text.startswith('//', i):
            while i < n and text[i] != '\n':
                out.append(' ')
                i += 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == 'R' and text.startswith('"', i + 1) and (i == 0 or not IDENT.match(text[i - 1])):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(')' + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + re.sub(r'[^\n]', ' ', text[i + 2:j]))
            i = j
        elif c == '"' or (c == "'" and not (i > 0 and re.match(r'[0-9A-Fa-f]', text[i - 1]))):
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (min(j, n) - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def depth0(head):
    """`head` with everything inside (), [] and <> (templates) removed."""
    out, depth = [], 0
    for c in head:
        if c in '([':
            depth += 1
        elif c in ')]':
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(c)
    return ''.join(out)


def function_name(head):
    h = re.sub(r'\s+', ' ', head).strip()
    m = re.search(r'operator\s*\(\s*\)\s*\(', h)
    cut = m.start() + len(re.match(r'operator\s*\(\s*\)', h[m.start():]).group(0)) if m else None
    if cut is None:
        depth = 0
        for k, c in enumerate(h):
            if c == '<':
                depth += 1
            elif c == '>' and depth > 0 and not h[k - 1] == '-':
                depth -= 1
            elif c == '(' and depth == 0:
                cut = k
                break
    before = h[:cut].rstrip() if cut is not None else h
    m = re.search(r'((?:[\w~]+(?:<[^()]*?>)?::)*(?:operator\s*(?:\(\)|[^\s\w(]+|\w+)|~?\w+))\s*$', before)
    return m.group(1).replace(' ', '') if m else '?'


def classify(head):
    """'ns' (namespace or class scope), 'fn', 'ctor-init' or 'other'."""
    h = head.strip()
    if re.match(r'^(inline\s+)?namespace\b', h) or re.match(r'^extern\s*""$', h):
        return 'ns'
    flat = depth0(h)
    if '(' not in h or re.search(r'\b(class|struct|union|enum)\b', flat.split('(')[0]) and ')' not in flat:
        if re.search(r'\b(class|struct|union|enum)\b', flat):
            return 'ns'
        return 'other'
    no_ops = re.sub(r'operator\s*[^\s\w(]+', 'operator', flat)
    if re.search(r'(?<![=!<>])=(?!=)', no_ops):
        return 'other'
    if ')' not in h:
        return 'other'
    if re.search(r'\)\s*(?:const\s*|noexcept\s*|override\s*|final\s*)*:(?!:)', h):
        return 'ctor-init'
    tail = h[h.rfind(')') + 1:]
    if re.fullmatch(r'\s*((const|volatile|noexcept|override|final|mutable|try|&|&&)\s*)*', tail) \
            or re.match(r'\s*(const\s*)?(noexcept\s*)?->', tail) or re.fullmatch(r'\s*(requires\b.*)', tail):
        return 'fn'
    return 'other'


def functions(path):
    text = blank(open(path, encoding='utf-8', errors='replace').read())
    results = []
    stack = []  # kinds of the open braces: 'ns', 'fn', 'other'
    head_start = 0
    i, n, line = 0, len(text), 1
    paren = 0
    while i < n:
        c = text[i]
        if c == '\n':
            line += 1
        in_scope = not stack or stack[-1] == 'ns'
        if not in_scope:
            if c == '{':
                stack.append('other')
            elif c == '}':
                kind = stack.pop()
                if isinstance(kind, tuple):
                    _, name, start = kind
                    results.append((name, start, line))
                    head_start = i + 1
                    stack_top_ns = True
            i += 1
            continue
        if c in '([':
            paren += 1
        elif c in ')]':
            paren = max(0, paren - 1)
        elif c == ';':
            head_start = i + 1
            paren = 0
        elif c == '}':
            if stack:
                stack.pop()
            head_start = i + 1
            paren = 0
        elif c == '{':
            head = text[head_start:i]
            kind = classify(head) if paren == 0 else 'other'
            if kind == 'ctor-init' and re.search(r'[\w>]\s*$', head):
                # A member's brace initializer: part of the head, skip it.
                depth, j = 0, i
                while j < n:
                    if text[j] == '{':
                        depth += 1
                    elif text[j] == '}':
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                line += text.count('\n', i, j)
                i = j + 1
                continue
            if paren > 0:
                # A braced argument at namespace scope (`Foo kX(1, {2});`).
                stack.append('other')
            elif kind in ('fn', 'ctor-init'):
                stack.append(('fn', function_name(head), line))
            elif kind == 'ns':
                stack.append('ns')
                head_start = i + 1
            else:
                stack.append('other')
        i += 1
    return results


def scan(paths):
    for root in paths:
        walk = [(root, [], [os.path.basename(root)])] if os.path.isfile(root) else os.walk(root)
        for d, _, names in walk:
            for name in sorted(names):
                if name.endswith(('.cc', '.h', '.cpp', '.hpp')):
                    p = name if os.path.isfile(root) and d == root else os.path.join(d, name)
                    p = root if os.path.isfile(root) else p
                    for fname, start, end in functions(p):
                        yield os.path.normpath(p), fname, end - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('paths', nargs='+')
    ap.add_argument('--limit', type=int, default=80)
    ap.add_argument('--allowlist')
    ap.add_argument('--list', action='store_true')
    a = ap.parse_args()
    long = {}
    for path, name, lines in scan(a.paths):
        if lines > a.limit:
            key = (path, name)
            long[key] = max(lines, long.get(key, 0))
    if a.list:
        for (path, name), lines in sorted(long.items()):
            print(f'{path} {name} {lines}')
        return 0
    allowed = {}
    if a.allowlist:
        for k, raw in enumerate(open(a.allowlist), 1):
            s = raw.split('#')[0].split()
            if not s:
                continue
            if len(s) != 3 or not s[2].isdigit():
                print(f'{a.allowlist}:{k}: expected "FILE FUNCTION LINES"', file=sys.stderr)
                return 1
            allowed[(os.path.normpath(s[0]), s[1])] = (int(s[2]), k)
    bad = 0
    for (path, name), lines in sorted(long.items()):
        entry = allowed.get((path, name))
        if entry is None:
            print(f'{path}: {name} is {lines} lines (limit {a.limit}): shorten it', file=sys.stderr)
            bad += 1
        elif lines > entry[0]:
            print(f'{path}: {name} grew to {lines} lines ({a.allowlist}:{entry[1]} allows {entry[0]}): '
                  'allowlisted functions may only shrink', file=sys.stderr)
            bad += 1
    for (path, name), (lines, k) in sorted(allowed.items(), key=lambda kv: kv[1][1]):
        if (path, name) not in long:
            print(f'{a.allowlist}:{k}: {path} {name} is gone or at most {a.limit} lines now: '
                  'delete the entry', file=sys.stderr)
            bad += 1
        elif long[(path, name)] < lines:
            print(f'{a.allowlist}:{k}: {path} {name} is {long[(path, name)]} lines now: lower the entry',
                  file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
