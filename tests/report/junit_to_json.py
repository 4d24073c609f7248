"""Parses a JUnit XML file with xml.etree and prints its structure as JSON (test helper).

usage: junit_to_json.py FILE -> {"tests", "failures", "skipped", "suites": [{"name", "tests", "failures",
       "skipped", "cases": [{"name", "classname", "failure", "system_out", "skipped",
       "skipped_message"}]}]}; exit 1 when it does not parse
       or the root is not <testsuites>.
"""
import json
import sys
import xml.etree.ElementTree as ET

try:
    root = ET.parse(sys.argv[1]).getroot()
except ET.ParseError as error:
    print(error, file=sys.stderr)
    sys.exit(1)
if root.tag != "testsuites":
    print(f"root is <{root.tag}>", file=sys.stderr)
    sys.exit(1)


def text_of(element):
    return None if element is None else (element.text or "")


suites = []
for suite in root.findall("testsuite"):
    cases = [{"name": case.get("name"), "classname": case.get("classname"),
              "failure": text_of(case.find("failure")),
              "failure_message": None if case.find("failure") is None else case.find("failure").get("message"),
              "system_out": text_of(case.find("system-out")),
              "skipped": case.find("skipped") is not None,
              "skipped_message": None if case.find("skipped") is None else case.find("skipped").get("message")}
             for case in suite.findall("testcase")]
    suites.append({"name": suite.get("name"), "tests": int(suite.get("tests")),
                   "failures": int(suite.get("failures")), "skipped": int(suite.get("skipped", "0")),
                   "cases": cases})
print(json.dumps({"tests": int(root.get("tests")), "failures": int(root.get("failures")),
                  "skipped": int(root.get("skipped", "0")), "suites": suites}))
