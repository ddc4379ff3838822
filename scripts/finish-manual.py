#!/usr/bin/env python3
"""Completes the man page argument-parser's generate-manual writes (NAME, SYNOPSIS, DESCRIPTION
with every option): its generic EXIT STATUS is replaced by docs/man/sections.mdoc's, which also
brings ENVIRONMENT, FILES, EXAMPLES and SEE ALSO; the options list gets its own OPTIONS heading;
empty lines (groff warns about each) are dropped; PREFIX becomes the install prefix.

    scripts/finish-manual.py GENERATED.1 SECTIONS.mdoc PREFIX > waypost.1
"""
import re
import sys

generated, sections_file, prefix = sys.argv[1:4]
page = open(generated, encoding="utf-8").read().split("\n")
sections = open(sections_file, encoding="utf-8").read()
sections = "\n".join(line for line in sections.split("\n") if not line.startswith('.\\"'))
sections = sections.replace("PREFIX", prefix.rstrip("/") or "/")

out = []
skipping = False
options_named = False
for line in page:
    if line.strip() == "":
        continue  # groff -ww: "empty input line"
    if line.startswith(".Sh "):
        title = line[4:].strip().strip('"').upper()
        if title == "EXIT STATUS":
            out.extend(sections.rstrip("\n").split("\n"))
            skipping = True
            continue
        skipping = False
    if skipping:
        continue
    # The top-level options follow the description's text as the first list: give them their
    # own heading, as man-pages(7) orders a page.
    if not options_named and line.startswith(".Bl -tag") and any(l.startswith(".Sh DESCRIPTION") for l in out):
        out.append(".Sh OPTIONS")
        options_named = True
    out.append(line)
if not any(l.startswith(".Sh EXIT STATUS") for l in out):
    sys.exit("finish-manual: the generated page has no EXIT STATUS section to replace")
print("\n".join(out))
