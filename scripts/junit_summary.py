"""Print a JUnit XML file's counts as one closing line: `pytest: N passed, N failed, N skipped`."""

import sys
import xml.etree.ElementTree as ET  # noqa: S405 - our own pytest's output, not untrusted input


def main(path: str) -> int:
    try:
        root = ET.parse(path).getroot()  # noqa: S314
    except (OSError, ET.ParseError) as exc:
        print(f"no test report at {path}: {exc}", file=sys.stderr)
        return 1
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    total = sum(int(s.get("tests", 0)) for s in suites)
    failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
    skipped = sum(int(s.get("skipped", 0)) for s in suites)
    print(f"pytest: {total - failed - skipped} passed, {failed} failed, {skipped} skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
