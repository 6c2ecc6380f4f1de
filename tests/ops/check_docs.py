#!/usr/bin/env python3
"""Every repository path and every `vanon` command the documents name exists.

  check_docs.py ROOT --bin VANON [--bin VANON_KAFKA] [DOC...]

ROOT is the source tree, read as it is when the check runs (no list of paths
is kept here, so files may move freely as long as the documents follow).
Each --bin is a built binary, known in the documents by its file name: its
`--help` (and `SUBCOMMAND --help`) is the truth about commands and flags.
DOCs (relative to ROOT) replace the default set:
README.md, docs/*.md, deploy/RUNBOOK.md, helm/*/README.md,
loadtest/**/README.md and clients/*/README.md. Prints one line per broken
reference, `file:line: message`, and exits 1 if there is any.

What counts as a path:
- the target of a Markdown link or image, resolved from the document's own
  directory (as a Markdown viewer does); URLs, mail addresses and in-page
  anchors (`#...`) are skipped, the `#anchor` of a file link is dropped;
- a word of an inline code span or of a code block (fenced, or indented by
  four spaces after a paragraph that is not a list) whose first
  component is an entry at the top of ROOT (`src/...`, `docs/x.md`,
  `./scripts/test.sh`, `README.md`), read from ROOT itself. Words with other
  first components (`/tmp/x`, `/etc/...`, `vanon.yaml`, `kafka.bootstrap`)
  are not repository paths and are skipped. A word after `=` is checked too.
  It must exist from ROOT, or from the document's directory (a package's
  README, like clients/python's, names its own `tests/...`).
- a word without `/` that ends like a source file (`release_runner.h`,
  `run_cost_curve.py`, `values.yaml`) is a file name: some file of that name
  (or NAME.in, for generated files) must exist somewhere in ROOT.
- `*`, `?` and `<placeholder>` are globs: at least one match must exist.
- `build/...` and `build-*/...` are build outputs, absent from a clean tree:
  `build/DIR/NAME` is checked only when ROOT/DIR has a CMakeLists.txt, and
  then NAME must appear in it (a target name; a NAME with a placeholder is
  skipped). Other build paths (outputs of a run, like
  `build/utility/utility.png`) are skipped.

What counts as a command: an inline code span, or a line of a fenced or
indented code block, cut at shell separators (`|`, `;`, `&`, `(`, `)`) and at ` #`
comments; a piece whose command word is the name of a --bin, alone or at the
end of a path (after `$ `, `VAR=value`, `exec`, `sudo`, `nice`, `env`,
`time`), is a command; `vanon` as an argument (`kubectl -n vanon`) is not.
For a binary with subcommands (vanon), the first word must be a subcommand
listed by its `--help` (or an option listed there) and every `-f`/`--flag`
after it an option listed by `vanon SUBCOMMAND --help`; for one without
(vanon-kafka), every flag an option of its `--help`.

Also, a code span naming a Markdown file followed by a quoted title
(`docs/state.md`, "State changelog") names a section: some heading of that
file must contain the title.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

DEFAULT_DOCS = ['README.md', 'docs/*.md', 'deploy/RUNBOOK.md', 'helm/*/README.md',
                'loadtest/**/README.md', 'clients/*/README.md']
FENCE = re.compile(r'^\s*(```|~~~)')
CODE_SPAN = re.compile(r'(`+)(.+?)\1')
LINK = re.compile(r'!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
WORD_CHARS = re.compile(r'^[A-Za-z0-9._+*?<>/{}-]+$')
PREFIX_WORDS = {'$', 'exec', 'sudo', 'nice', 'env', 'time'}
SECTION = re.compile(r'^\s*,?\s*(?:section\s+)?"([^"]+)"')
LIST_ITEM = re.compile(r'^\s+\S|^\s*([-*+]|\d+[.)])\s')
FLAG = re.compile(r'(?<![\w-])(--?[A-Za-z][\w-]*)')
HELP_NAME = re.compile(r'^  (\S+)')
FILE_NAME = re.compile(r'^[\w+-][\w.+-]*\.(cc|h|py|sh|md|yaml|yml|json|txt|mjs|tpl|cmake)$')


def help_text(vanon, *args):
    out = subprocess.run([vanon, *args, '--help'], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f'{vanon} {" ".join(args)} --help exited {out.returncode}: {out.stderr}')
    return out.stdout


def help_sections(text):
    """CLI11 help: {'Options': {...}, 'Subcommands': {...}}, first-column names."""
    sections, current = {}, None
    for line in text.splitlines():
        if re.match(r'^[A-Z][A-Za-z]*:$', line):
            current = sections.setdefault(line[:-1], set())
        elif current is not None and HELP_NAME.match(line):
            for name in HELP_NAME.match(line).group(1).split(','):
                current.add(name)
    return sections


class Cli:
    """Subcommands and flags as a built binary lists them, read once each."""

    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        top = help_sections(help_text(path))
        self.subcommands = top.get('Subcommands', set())
        self.top_flags = top.get('Options', set())
        self.flags = {}

    def check(self, words):
        name = self.name
        if not self.subcommands:
            return [f'`{name} {flag}`: no such option in `{name} --help`'
                    for flag in FLAG.findall(' '.join(words)) if flag not in self.top_flags]
        if not words:
            return []
        sub, rest = words[0], ' '.join(words[1:])
        if sub.startswith('-'):
            return [] if sub in self.top_flags else [f'`{name} {sub}`: no such option in `{name} --help`']
        if sub not in self.subcommands:
            return [f'`{name} {sub}`: no such subcommand in `{name} --help`']
        if sub not in self.flags:
            self.flags[sub] = help_sections(help_text(self.path, sub)).get('Options', set())
        return [f'`{name} {sub} {flag}`: no such flag in `{name} {sub} --help`'
                for flag in FLAG.findall(rest) if flag not in self.flags[sub]]


class Tree:
    """What the check reads of ROOT: its top entries and every file name."""

    def __init__(self, root):
        self.root = root
        self.top = {e for e in os.listdir(root) if not e.startswith('build')}
        self.names = set()
        for d, subdirs, files in os.walk(root):
            subdirs[:] = [s for s in subdirs if s != '.git' and not (d == root and s.startswith('build'))]
            self.names.update(files)
        self.paths = 0
        self.commands = 0

    def exists(self, rel):
        pattern = os.path.join(self.root, re.sub(r'<[^>/]+>', '*', rel))
        if any(c in pattern for c in '*?['):
            return bool(glob.glob(pattern, recursive=True))
        return os.path.exists(pattern)


def check_build_path(tree, rel):
    """build/DIR/NAME: NAME must be named in ROOT/DIR/CMakeLists.txt if it exists."""
    parts = rel.rstrip('/').split('/')
    if len(parts) < 3 or re.search(r'[*?<]', parts[-1]):
        return None
    cmake = os.path.join(tree.root, *parts[1:-1], 'CMakeLists.txt')
    if not os.path.isfile(cmake):
        return None
    tree.paths += 1
    with open(cmake, encoding='utf-8') as f:
        if re.search(r'(?<![\w-])' + re.escape(parts[-1]) + r'(?![\w-])', f.read()):
            return None
    return f'`{rel}`: no target {parts[-1]} in {os.path.relpath(cmake, tree.root)}'


def check_word(tree, doc, word):
    """A message when WORD is a repository path that does not exist, else None."""
    word = word.split('=', 1)[1] if '=' in word and not word.startswith('-') else word
    word = word.strip('"\'').rstrip('.,;:)')
    while word.startswith('./'):
        word = word[2:]
    word = word.split('#', 1)[0]
    if not word or not WORD_CHARS.match(word) or '{' in word:
        return None
    if '/' not in word and FILE_NAME.match(word):
        tree.paths += 1
        if word in tree.names or word + '.in' in tree.names:
            return None
        return f'`{word}`: no file of that name in the tree'
    first = word.split('/', 1)[0]
    if first == 'build' or first.startswith('build-'):
        return check_build_path(tree, word)
    if first not in tree.top or ('/' not in word and not os.path.isfile(os.path.join(tree.root, first))):
        return None
    tree.paths += 1
    if tree.exists(word) or tree.exists(os.path.join(os.path.dirname(doc), word)):
        return None
    return f'`{word}`: no such path in the tree'


def check_link(tree, doc, target):
    if re.match(r'^[a-z][a-z0-9+.-]*:', target) or target.startswith('#'):
        return None
    path = target.split('#', 1)[0]
    if not path or path.startswith('/'):
        return None
    tree.paths += 1
    rel = os.path.normpath(os.path.join(os.path.dirname(doc), path))
    return None if tree.exists(rel) else f'link `{target}`: no such path {rel}'


def commands(code, clis):
    """(cli, words after the command word) for each piece of CODE that runs one of CLIS."""
    for piece in re.split(r'[|;&()]', re.split(r'\s#', code, maxsplit=1)[0]):
        words = piece.split()
        while words and (words[0] in PREFIX_WORDS or re.match(r'^[A-Z_][A-Z0-9_]*=', words[0])):
            words.pop(0)
        if words and words[0].rsplit('/', 1)[-1] in clis:
            yield clis[words[0].rsplit('/', 1)[-1]], words[1:]


def check_code(tree, clis, doc, code):
    problems = [check_word(tree, doc, w) for w in code.split()]
    for binary, words in commands(code, clis):
        tree.commands += 1
        problems += binary.check(words)
    return [p for p in problems if p]


def check_section(tree, doc, path, title):
    """A message when PATH (a .md file) has no heading containing TITLE."""
    if not path.endswith('.md') or check_word(tree, doc, path):
        return None
    full = os.path.join(tree.root, path)
    if not tree.exists(path):
        full = os.path.join(tree.root, os.path.dirname(doc), path)
    with open(full, encoding='utf-8') as f:
        headings = [line for line in f.read().splitlines() if line.startswith('#')]
    if any(title.lower() in h.lower() for h in headings):
        return None
    return f'`{path}`, "{title}": no such section'


def code_lines(lines):
    """For each line, whether it is code: inside a fence, or an indented code
    block (4 spaces, after a blank line that follows a paragraph, not a list)."""
    code, fenced, indented, last_text = [], False, False, ''
    for i, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
            code.append(None)
            continue
        if not fenced and line.startswith('    ') and line.strip():
            indented = indented or (i > 0 and not lines[i - 1].strip() and not LIST_ITEM.match(last_text))
        elif line.strip():
            indented = False
        if line.strip() and not fenced and not indented:
            last_text = line
        code.append(fenced or indented)
    return code


def check_doc(tree, clis, doc):
    problems = []
    with open(os.path.join(tree.root, doc), encoding='utf-8') as f:
        lines = f.read().splitlines()
    for number, (line, code) in enumerate(zip(lines, code_lines(lines)), 1):
        found = []
        if code is None:
            continue
        if code:
            found = check_code(tree, clis, doc, line)
        else:
            for m in CODE_SPAN.finditer(line):
                found += check_code(tree, clis, doc, m.group(2))
                title = SECTION.match(line[m.end():])
                if title and len(m.group(2).split()) == 1:
                    found.append(check_section(tree, doc, m.group(2), title.group(1)))
            for m in LINK.finditer(CODE_SPAN.sub('', line)):
                found.append(check_link(tree, doc, m.group(1)))
        problems += [f'{doc}:{number}: {p}' for p in found if p]
    return problems


def documents(root, patterns):
    docs = set()
    for pattern in patterns:
        for path in glob.glob(os.path.join(root, pattern), recursive=True):
            rel = os.path.relpath(path, root)
            if os.path.isfile(path) and not rel.startswith('build'):
                docs.add(rel)
    return sorted(docs)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', 1)[0])
    parser.add_argument('root')
    parser.add_argument('--bin', action='append', required=True)
    parser.add_argument('docs', nargs='*')
    args = parser.parse_intermixed_args(argv[1:])
    docs = documents(args.root, args.docs or DEFAULT_DOCS)
    if not docs:
        print(f'{args.root}: no document to check', file=sys.stderr)
        return 1
    tree = Tree(args.root)
    clis = {c.name: c for c in map(Cli, args.bin)}
    problems = []
    for doc in docs:
        problems += check_doc(tree, clis, doc)
    for p in problems:
        print(p)
    print(f'{len(docs)} documents, {tree.paths} paths and {tree.commands} commands checked, '
          f'{len(problems)} broken', file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
