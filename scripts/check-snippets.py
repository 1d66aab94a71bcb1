#!/usr/bin/env python3
"""Compiles every Swift code block of README.md and docs/*.md, and runs the programs and tests
among them, in a scratch package outside the repository that depends on this one by path (the
way a user's package does), so documentation cannot rot (like Rust's doc tests).

    scripts/check-snippets.py [--work DIR] [--mock-server PATH] [--list]

A block is a fragment unless an HTML comment right above its fence (hidden when the Markdown is
shown) says otherwise:

    <!-- snippet: program search-and-pin        a whole main.swift, an executable of its own
    run: {host} {imaps} alice "from:dumbledore" {ca}    run it with these arguments ...
    stdin: secret                                        ... this line on standard input ...
    expect: pinned                                       ... and this in what it prints
    -->
    <!-- snippet: test -->                       Swift Testing tests, run with swift test
    <!-- snippet                                 a fragment (the default) ...
    given: session: IMAPSession                  ... with what it uses but does not make ...
    import: IMAPClient                           ... the modules those need ...
    main-actor                                   ... on the main actor
    -->

A fragment is compiled as the body of an `async throws` function whose parameters are its
`given:` lines; its own `import` lines go to the top of the file. Programs depend only on the
products they import (a program that imports MailSearch alone proves that one import is enough).
Compiler errors point at the Markdown file and line (#sourceLocation). {host}, {imap}, {imaps}
and {ca} are a `mock-imap-server --demo` started for the run (alice, password secret).

Exit status 0 when everything compiled, ran and passed; 1 otherwise, with what failed.
"""

import argparse
import hashlib
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY_PRODUCTS = [
    "MailSearch", "MockIMAPServerTesting", "MockIMAPServer", "IMAPClient", "IMAPCore", "MailMIME", "Transport",
]
FENCE = re.compile(r"^(\s*)```swift\s*$")


class Block:
    def __init__(self, path, line, code, directive):
        self.path = path          # the Markdown file
        self.line = line          # the line of the block's first line of code
        self.code = code          # dedented lines
        self.kind = "fragment"
        self.name = None
        self.given = []
        self.imports = []
        self.main_actor = False
        self.run = None
        self.stdin = ""
        self.expect = []
        if directive is not None:
            self.parse_directive(directive)

    def parse_directive(self, text):
        lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
        head = lines[0].split()
        if len(head) > 1:
            self.kind = head[1]
        if len(head) > 2:
            self.name = head[2]
        for line in lines[1:]:
            key, _, value = line.partition(":")
            key, value = key.strip(), value.strip()
            if line == "main-actor":
                self.main_actor = True
            elif key == "given":
                self.given.append(value)
            elif key == "import":
                self.imports.append(value)
            elif key == "run":
                self.run = value
            elif key == "stdin":
                self.stdin = value + "\n"
            elif key == "expect":
                self.expect.append(value)
            else:
                raise SystemExit(f"{self.where}: unknown snippet directive line: {line}")
        if self.kind not in ("fragment", "program", "test"):
            raise SystemExit(f"{self.where}: unknown snippet kind {self.kind}")
        if self.kind == "program" and not self.name:
            raise SystemExit(f"{self.where}: a program needs a name: <!-- snippet: program NAME -->")

    @property
    def where(self):
        return f"{os.path.relpath(self.path, ROOT)}:{self.line}"

    def split_imports(self):
        """The block's import lines, and the rest (with the line number each starts at)."""
        imports, body = [], []
        for offset, line in enumerate(self.code):
            if re.match(r"^(@testable |@preconcurrency )?import \w+", line) and not body:
                imports.append(line.strip())
            elif imports and not body and not line.strip():
                continue
            else:
                if not body:
                    first = offset
                body.append(line)
        return imports, body, (self.line + first if body else self.line)

    def modules(self):
        imports, _, _ = self.split_imports()
        names = [line.split()[-1] for line in imports] + [name.split()[-1] for name in self.imports]
        return [name for name in dict.fromkeys(names)]


def extract(path):
    """The Swift blocks of one Markdown file, each with the directive comment above it."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    blocks = []
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        indent = match.group(1)
        directive = None
        # The comment that ends on the line above the fence.
        above = index - 1
        if above >= 0 and lines[above].strip().endswith("-->"):
            start = above
            while start >= 0 and "<!--" not in lines[start]:
                start -= 1
            comment = "\n".join(lines[start:above + 1]).strip()
            comment = comment[comment.index("<!--") + 4:comment.rindex("-->")]
            if comment.strip().startswith("snippet"):
                directive = comment
        code = []
        index += 1
        begin = index + 1
        while index < len(lines) and not re.match(r"^\s*```\s*$", lines[index]):
            line = lines[index]
            code.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            index += 1
        index += 1
        blocks.append(Block(path, begin, code, directive))
    return blocks


def markdown_files():
    files = [os.path.join(ROOT, "README.md")]
    docs = os.path.join(ROOT, "docs")
    files += sorted(os.path.join(docs, name) for name in os.listdir(docs) if name.endswith(".md"))
    return files


def write_if_changed(path, text):
    """Writes only a changed file, so an unchanged snippet is not compiled again."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            if handle.read() == text:
                return
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def located(block, body, first_line):
    return f'#sourceLocation(file: "{block.path}", line: {first_line})\n' + "\n".join(body) + "\n#sourceLocation()\n"


def generate(work, blocks):
    """The scratch package: one executable per program, one target of fragments, one test target."""
    package = os.path.basename(ROOT.rstrip("/")).lower()
    programs = [block for block in blocks if block.kind == "program"]
    tests = [block for block in blocks if block.kind == "test"]
    fragments = [block for block in blocks if block.kind == "fragment"]
    names = [block.name for block in programs]
    if len(set(names)) != len(names):
        raise SystemExit(f"two programs share a name: {names}")

    def products(modules):
        return ", ".join(f'.product(name: "{name}", package: "{package}")' for name in modules
                         if name in LIBRARY_PRODUCTS)

    targets = []
    for block in programs:
        imports, body, first = block.split_imports()
        # A program with an @main type may not be in main.swift (top-level code).
        filename = f"{block.name}.swift" if any(line.startswith("@main") for line in body) else "main.swift"
        program = os.path.join(work, "Programs", block.name)
        for stale in set(os.listdir(program) if os.path.isdir(program) else []) - {filename}:
            os.remove(os.path.join(program, stale))
        write_if_changed(os.path.join(program, filename), "\n".join(imports) + "\n\n" + located(block, body, first))
        targets.append(f'.executableTarget(name: "{block.name}", dependencies: [{products(block.modules())}], '
                       f'path: "Programs/{block.name}")')
    expected = {"Fragments": set(), "SnippetTests": set()}
    for number, block in enumerate(fragments, 1):
        imports, body, first = block.split_imports()
        modules = block.modules() or ["MailSearch"]
        header = "\n".join(f"import {name}" for name in modules)
        parameters = ", ".join(block.given)
        actor = "@MainActor " if block.main_actor else ""
        name = f"snippet{number:03d}"
        text = (f"{header}\n\n// {block.where}\n{actor}func {name}({parameters}) async throws {{\n"
                + located(block, body, first) + "}\n")
        write_if_changed(os.path.join(work, "Fragments", f"{name}.swift"), text)
        expected["Fragments"].add(f"{name}.swift")
    for number, block in enumerate(tests, 1):
        imports, body, first = block.split_imports()
        name = f"Test{number:03d}.swift"
        write_if_changed(os.path.join(work, "Tests", "SnippetTests", name),
                         "\n".join(imports) + "\n\n" + located(block, body, first))
        expected["SnippetTests"].add(name)
    # A snippet removed from the documentation leaves no file behind to be compiled.
    for folder, keep in [("Fragments", expected["Fragments"]), ("Tests/SnippetTests", expected["SnippetTests"])]:
        directory = os.path.join(work, folder)
        os.makedirs(directory, exist_ok=True)
        for stale in set(os.listdir(directory)) - keep:
            os.remove(os.path.join(directory, stale))
    if not expected["Fragments"]:
        write_if_changed(os.path.join(work, "Fragments", "none.swift"), "// no fragments\n")
    targets.append(f'.target(name: "Fragments", dependencies: [{products(LIBRARY_PRODUCTS)}], path: "Fragments")')
    test_modules = sorted({name for block in tests for name in block.modules()})
    targets.append(f'.testTarget(name: "SnippetTests", dependencies: [{products(test_modules)}], '
                   f'path: "Tests/SnippetTests")')
    joined = ",\n        ".join(targets)
    manifest = f"""// swift-tools-version: 6.0
// Generated by scripts/check-snippets.py from the Swift blocks of README.md and docs/.
import PackageDescription

let package = Package(
    name: "MailSearchSnippets",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "{ROOT}")],
    targets: [
        {joined}
    ],
    swiftLanguageModes: [.v6]
)
"""
    write_if_changed(os.path.join(work, "Package.swift"), manifest)
    return programs, tests


def swift(work, *arguments):
    """Runs swift in the scratch package at a lower priority than the tests running beside it."""
    command = ["nice", "-n", "10", "swift", *arguments, "--package-path", work]
    print("$ " + " ".join(command), flush=True)
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def start_mock_server(path, work):
    certificate = os.path.join(work, "mock-ca.pem")
    process = subprocess.Popen(
        [path, "--demo", "--cert-out", certificate, "--exit-with-parent"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.match(r"READY imap=([\d.]+):(\d+) imaps=[\d.]+:(\d+)", line)
    if not match:
        process.kill()
        raise SystemExit(f"mock-imap-server did not start: {line!r} {process.stderr.read()}")
    return process, {"host": match.group(1), "imap": match.group(2), "imaps": match.group(3), "ca": certificate}


def main():
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    digest = hashlib.sha256(ROOT.encode()).hexdigest()[:12]
    options.add_argument("--work", default=os.path.join(tempfile.gettempdir(), f"mailsearch-snippets-{digest}"))
    options.add_argument("--mock-server", default=os.path.join(ROOT, ".build", "debug", "mock-imap-server"))
    options.add_argument("--list", action="store_true", help="print the blocks found and stop")
    arguments = options.parse_args()

    blocks = [block for path in markdown_files() for block in extract(path)]
    if arguments.list:
        for block in blocks:
            print(f"{block.where}: {block.kind}{' ' + block.name if block.name else ''}")
        return 0
    programs, tests = generate(arguments.work, blocks)
    print(f"{len(blocks)} Swift blocks: {len(programs)} programs, {len(tests)} tests, "
          f"{len(blocks) - len(programs) - len(tests)} fragments; scratch package {arguments.work}", flush=True)

    # One compile job at a time: the tests this runs beside have the machine's cores.
    built = swift(arguments.work, "build", "--build-tests", "--jobs", "1")
    if built.returncode != 0:
        errors = [line for line in built.stdout.splitlines() if ": error:" in line or ": warning:" in line]
        print("\n".join(errors) or built.stdout[-4000:])
        print("FAILED: the documentation's Swift does not compile (errors above, by Markdown file and line)")
        return 1

    failures = []
    runnable = [block for block in programs if block.run]
    if runnable:
        server, values = start_mock_server(arguments.mock_server, arguments.work)
        try:
            binaries = subprocess.run(["swift", "build", "--show-bin-path", "--package-path", arguments.work],
                                      stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
            for block in runnable:
                command = [os.path.join(binaries, block.name)] + shlex.split(block.run.format(**values))
                print("$ " + " ".join(shlex.quote(part) for part in command), flush=True)
                try:
                    result = subprocess.run(command, input=block.stdin, stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT, text=True, timeout=120)
                except subprocess.TimeoutExpired:
                    failures.append(f"{block.where}: program {block.name} ran past 120 s")
                    continue
                print(result.stdout, end="")
                if result.returncode != 0:
                    failures.append(f"{block.where}: program {block.name} exited {result.returncode}")
                for wanted in block.expect:
                    if wanted not in result.stdout:
                        failures.append(f"{block.where}: program {block.name} did not print {wanted!r}")
        finally:
            server.terminate()
            server.wait()
    if tests:
        tested = swift(arguments.work, "test", "--skip-build")
        summary = [line for line in tested.stdout.splitlines() if "✘" in line or "Test run with" in line]
        print("\n".join(summary) if summary else tested.stdout[-4000:])
        if tested.returncode != 0:
            failures.append("the documentation's tests failed (above)")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print(f"OK: {len(blocks)} Swift blocks compile; {len(runnable)} programs ran; the tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
