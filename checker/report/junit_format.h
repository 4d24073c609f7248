#pragma once
#include <string>

#include "checker/core/report.h"

namespace kcheck {

// JUnit XML: one <testsuite> per variant (plus one for tree-level findings),
// one <testcase> per rule family that ran (KL, KM, KE, ...). A test case
// fails when one of its findings fails the gate (errors, or warnings under
// --strict); the <failure> lists every finding of the family, and findings
// that do not fail the gate go to <system-out>.
std::string render_junit(const Report& report);

}  // namespace kcheck
