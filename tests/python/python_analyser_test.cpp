// analyse_python_source() on the shapes real code takes.
#include <gtest/gtest.h>

#include "tests/support/repeated_text.h"

#include <algorithm>

#include "checker/kinds/python_facts.h"

namespace kcheck {
namespace {

PythonFileFacts analyse(std::string_view source) { return analyse_python_source(source, "m.py"); }

std::vector<std::string> modules_of(const PythonFileFacts& facts) {
  std::vector<std::string> modules;
  for (const PythonImport& import : facts.imports) modules.push_back(import.module);
  return modules;
}

std::vector<std::string> constructs_of(const PythonFileFacts& facts) {
  std::vector<std::string> constructs;
  for (const PythonSyntaxFeature& feature : facts.newer_syntax) constructs.push_back(feature.construct);
  return constructs;
}

const PythonCall* find_call(const PythonFileFacts& facts, std::string_view callee) {
  for (const PythonCall& call : facts.calls) {
    if (call.callee == callee) return &call;
  }
  return nullptr;
}

TEST(PythonAnalyser, ImportsOfEveryForm) {
  const auto facts = analyse(
      "import os, os.path as p\n"
      "from . import _ops\n"
      "from ..pkg.sub import (a as b,\n    c,)\n"
      "from ... import x\n"
      "from .mod import *\n"
      "if True: import json; import re\n");
  ASSERT_TRUE(facts.parsed) << facts.parse_error;
  ASSERT_EQ(facts.imports.size(), 8u);
  EXPECT_EQ(modules_of(facts), (std::vector<std::string>{"os", "os.path", "", "pkg.sub", "", "mod", "json", "re"}));
  EXPECT_EQ(facts.imports[1].bound_names, std::vector<std::string>{"p"});
  EXPECT_EQ(facts.imports[3].level, 2);
  EXPECT_EQ(facts.imports[3].names, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(facts.imports[3].bound_names, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(facts.imports[3].line, 3);
  EXPECT_EQ(facts.imports[4].level, 3);
  EXPECT_TRUE(facts.has_star_import);
  EXPECT_EQ(facts.imports[7].line, 7);
}

TEST(PythonAnalyser, ImportsInsideStringsAndCommentsAreNotImports) {
  const auto facts = analyse(
      "s = 'import os'\n"
      "t = \"\"\"\nimport sys\n\"\"\"\n"
      "# import json\n"
      "u = rb'\\'import re' + Rb\"x\" + BR'''y''' + u'z' + F'{1}' + fR\"\\d{2}\"\n"
      "import typing\n");
  ASSERT_TRUE(facts.parsed) << facts.parse_error;
  EXPECT_EQ(modules_of(facts), std::vector<std::string>{"typing"});
  EXPECT_EQ(facts.imports[0].line, 7);
}

TEST(PythonAnalyser, NestedFStringsContinuationsAndBracketsKeepLinesRight) {
  const auto facts = analyse(
      "x = f\"{'a' + f'{1:>{width}}'}\" \\\n"
      "    + f'''{\n"
      "  \"multi\"\n"
      "}'''\n"
      "y = (1,\n"
      "     2)\n"
      "import os\n");
  ASSERT_TRUE(facts.parsed) << facts.parse_error;
  ASSERT_EQ(facts.imports.size(), 1u);
  EXPECT_EQ(facts.imports[0].line, 7);
  EXPECT_TRUE(facts.newer_syntax.empty()) << constructs_of(facts)[0];
}

TEST(PythonAnalyser, CrlfBomTabsAndNonAsciiIdentifiers) {
  const auto facts = analyse(
      "\xEF\xBB\xBF"
      "def f():\r\n"
      "\tif True:\r\n"
      "\t\timport os\r\n"
      "\t\xC3\xA9t\xC3\xA9 = 1\r\n"
      "import sys\r\n");
  ASSERT_TRUE(facts.parsed) << facts.parse_error;
  EXPECT_EQ(modules_of(facts), (std::vector<std::string>{"os", "sys"}));
  EXPECT_EQ(facts.imports[1].line, 5);
}

TEST(PythonAnalyser, TypeCheckingAndImportErrorGuards) {
  const auto facts = analyse(
      "from typing import TYPE_CHECKING\n"
      "if TYPE_CHECKING:\n"
      "    import numpy\n"
      "else:\n"
      "    import json\n"
      "try:\n"
      "    import triton\n"
      "except ImportError:\n"
      "    triton = None\n"
      "try:\n"
      "    import einops\n"
      "except ValueError:\n"
      "    pass\n");
  ASSERT_TRUE(facts.parsed) << facts.parse_error;
  ASSERT_EQ(facts.imports.size(), 5u);
  EXPECT_TRUE(facts.imports[1].in_type_checking);
  EXPECT_FALSE(facts.imports[2].in_type_checking);
  EXPECT_TRUE(facts.imports[3].in_import_error_guard);
  EXPECT_FALSE(facts.imports[4].in_import_error_guard);
}

TEST(PythonAnalyser, AllClassesAndTopLevelNames) {
  const auto facts = analyse(
      "from ._ops import ops\n"
      "import torch.nn as nn\n"
      "CONST, other = 1, 2\n"
      "@decorate\n"
      "class Layer(nn.Module, metaclass=Meta):\n"
      "    \"\"\"Doc.\"\"\"\n"
      "    has_backward = False\n"
      "    weight: torch.Tensor\n"
      "    scale: float = 1.0\n"
      "    def forward(self, x):\n"
      "        local = 1\n"
      "        return x\n"
      "    async def helper(self): pass\n"
      "__all__ = ['Layer', \"ops\"]\n"
      "__all__ += ('CONST',)\n");
  ASSERT_TRUE(facts.parsed) << facts.parse_error;
  ASSERT_TRUE(facts.defines_all);
  ASSERT_TRUE(facts.all_names.has_value());
  EXPECT_EQ(*facts.all_names, (std::vector<std::string>{"Layer", "ops", "CONST"}));
  EXPECT_EQ(facts.all_line, 14);
  for (const char* name : {"ops", "nn", "CONST", "other", "Layer"}) {
    EXPECT_NE(std::find(facts.top_level_names.begin(), facts.top_level_names.end(), name), facts.top_level_names.end())
        << name;
  }
  EXPECT_EQ(std::count(facts.top_level_names.begin(), facts.top_level_names.end(), "local"), 0);
  ASSERT_EQ(facts.classes.size(), 1u);
  const PythonClass& layer = facts.classes[0];
  EXPECT_EQ(layer.bases, std::vector<std::string>{"nn.Module"});
  ASSERT_EQ(layer.methods.size(), 2u);
  EXPECT_EQ(layer.methods[1].name, "helper");
  EXPECT_EQ(layer.methods[1].line, 13);
  ASSERT_EQ(layer.class_variables.size(), 2u);
  EXPECT_EQ(layer.class_variables[0].name, "has_backward");
  EXPECT_EQ(layer.class_variables[1].name, "scale");
  ASSERT_EQ(layer.annotations.size(), 1u);
  EXPECT_EQ(layer.annotations[0].name, "weight");
}

TEST(PythonAnalyser, NonLiteralAllIsDefinedButUnknown) {
  const auto facts = analyse("__all__ = [n for n in dir() if n[0] != '_']\n");
  ASSERT_TRUE(facts.parsed);
  EXPECT_TRUE(facts.defines_all);
  EXPECT_FALSE(facts.all_names.has_value());
}

TEST(PythonAnalyser, DecoratorCallsAndTorchOpsChains) {
  const auto facts = analyse(
      "import torch\n"
      "@torch.library.register_fake(add_op_namespace_prefix(\"relu\"))\n"
      "def _(x):\n"
      "    return torch.ops._relu_cpu_abc1234.relu.default(x)\n"
      "lib = torch.library.Library('ns', \"DEF\")\n"
      "f = lambda x=1: eval(x)\n");
  ASSERT_TRUE(facts.parsed) << facts.parse_error;
  const PythonCall* fake = find_call(facts, "torch.library.register_fake");
  ASSERT_NE(fake, nullptr);
  EXPECT_TRUE(fake->is_decorator);
  EXPECT_TRUE(fake->at_top_level);
  EXPECT_EQ(fake->first_argument_callee, "add_op_namespace_prefix");
  EXPECT_FALSE(fake->first_string_argument.has_value());
  const PythonCall* library = find_call(facts, "torch.library.Library");
  ASSERT_NE(library, nullptr);
  EXPECT_EQ(library->first_string_argument, "ns");
  EXPECT_EQ(library->arguments, (std::vector<std::string>{"'ns'", "\"DEF\""}));
  EXPECT_NE(find_call(facts, "eval"), nullptr);
  ASSERT_EQ(facts.torch_ops_chains.size(), 1u);
  EXPECT_EQ(facts.torch_ops_chains[0].chain, "torch.ops._relu_cpu_abc1234.relu.default");
  EXPECT_EQ(facts.torch_ops_chains[0].line, 4);
  EXPECT_EQ(std::count(facts.top_level_names.begin(), facts.top_level_names.end(), "x"), 0);
}

TEST(PythonAnalyser, SoftKeywordsAsNamesAreNotNewSyntax) {
  const auto facts = analyse(
      "match = re.match(p, s)\n"
      "match.group(1)\n"
      "case = 2\n"
      "type = 3\n"
      "print(type(x))\n"
      "with (a, b):\n"
      "    pass\n"
      "def f(x: 'int | None') -> Optional[int]: pass\n");
  ASSERT_TRUE(facts.parsed) << facts.parse_error;
  EXPECT_TRUE(facts.newer_syntax.empty()) << constructs_of(facts)[0];
}

TEST(PythonAnalyser, NewerSyntaxWithLines) {
  const auto facts = analyse(
      "match command:\n"
      "    case [x, *rest] if x:\n"
      "        pass\n"
      "    case {'k': v}: pass\n"
      "type Alias = int\n"
      "def f[T](x: T) -> T: return x\n");
  ASSERT_TRUE(facts.parsed) << facts.parse_error;
  ASSERT_EQ(facts.newer_syntax.size(), 3u);
  EXPECT_EQ(facts.newer_syntax[0].minimum_python, "3.10");
  EXPECT_EQ(facts.newer_syntax[0].line, 1);
  EXPECT_EQ(facts.newer_syntax[1].line, 5);
  EXPECT_EQ(facts.newer_syntax[2].line, 6);
}

TEST(PythonAnalyser, UnionAnnotationsOnlyWhereEvaluated) {
  const auto evaluated = analyse(
      "x: int | None = None\n"
      "def f(a: int | None = None) -> None:\n"
      "    local: int | None = None\n");
  ASSERT_TRUE(evaluated.parsed);
  ASSERT_EQ(evaluated.newer_syntax.size(), 2u);
  EXPECT_EQ(evaluated.newer_syntax[0].line, 1);
  EXPECT_EQ(evaluated.newer_syntax[1].line, 2);
  const auto postponed = analyse("from __future__ import annotations\nx: int | None = None\n");
  EXPECT_TRUE(postponed.future_annotations);
  EXPECT_TRUE(postponed.newer_syntax.empty());
}

struct BrokenSource {
  const char* source;
  int line;
};

class PythonSyntaxErrors : public ::testing::TestWithParam<BrokenSource> {};

TEST_P(PythonSyntaxErrors, ReportTheLine) {
  const auto facts = analyse(GetParam().source);
  EXPECT_FALSE(facts.parsed);
  EXPECT_FALSE(facts.parse_error.empty());
  EXPECT_EQ(facts.parse_error_line, GetParam().line) << facts.parse_error;
}

INSTANTIATE_TEST_SUITE_P(Broken, PythonSyntaxErrors,
                         ::testing::Values(BrokenSource{"import os\ndef f(x)\n    return x\n", 2},
                                           BrokenSource{"x = 'abc\n", 1},
                                           BrokenSource{"a = 1\ns = \"\"\"never closed\n", 2},
                                           BrokenSource{"x = (1,\n     2\n", 1}, BrokenSource{"x = 1)\n", 1},
                                           BrokenSource{"if x:\n        a = 1\n    b = 2\n", 3},
                                           BrokenSource{"  x = 1\n", 1}, BrokenSource{"def f():\nreturn 1\n", 2},
                                           BrokenSource{"@decorator\nx = 1\n", 1}, BrokenSource{"from import x\n", 1},
                                           BrokenSource{"x = f'{a'\n", 1}, BrokenSource{"y = 1 $ 2\n", 1}));

}  // namespace
}  // namespace kcheck

namespace kcheck {
namespace {

// Every prefix of a file with every kind of token is handled without a
// crash, and a rejected prefix names a line inside the text.
TEST(PythonAnalyser, EveryTruncationIsHandled) {
  const std::string source =
      "\xEF\xBB\xBF# -*- coding: utf-8 -*-\r\n"
      "from __future__ import annotations\n"
      "import os, sys as system\n"
      "@decorator(arg=[1, 2], **kw)\n"
      "class Layer(torch.nn.Module):\n"
      "\thas_backward = False\n"
      "\tdef forward(self, x: int | None = None) -> 'T':\n"
      "\t\ts = f\"{x!r:>{width}} {'a' + rb'x'}\" \\\n"
      "\t\t    + '''tri\nple''' + u\"\\N{EN DASH}\"\n"
      "\t\treturn torch.ops._relu_cpu_0a1b2c3.relu(x, *args)\n"
      "try:\n    import triton\nexcept ImportError:\n    triton = None\n"
      "match = lambda x=1: x; __all__ = ['Layer']\n";
  for (std::size_t length = 0; length <= source.size(); ++length) {
    const std::string_view prefix(source.data(), length);
    const PythonFileFacts facts = analyse(prefix);
    if (facts.parsed) continue;
    const int lines = 1 + static_cast<int>(std::count(prefix.begin(), prefix.end(), '\n'));
    EXPECT_FALSE(facts.parse_error.empty()) << "prefix of " << length << " bytes";
    EXPECT_GE(facts.parse_error_line, 1) << "prefix of " << length << " bytes: " << facts.parse_error;
    EXPECT_LE(facts.parse_error_line, lines) << "prefix of " << length << " bytes: " << facts.parse_error;
  }
  const PythonFileFacts whole = analyse(source);
  EXPECT_TRUE(whole.parsed) << whole.parse_error << " at line " << whole.parse_error_line;
  EXPECT_EQ(whole.imports.size(), 4u);
  EXPECT_TRUE(whole.newer_syntax.empty()) << "valid Python 3.9 (ast agrees)";
}

}  // namespace
}  // namespace kcheck

namespace kcheck {
namespace {

using testing_support::repeated;

// CPython's nesting limits (issue #14): past them a file does not compile,
// and no input drives the tokenizer's or parser's recursion deeper.
TEST(PythonAnalyser, NestingPastCPythonsLimitsDoesNotParse) {
  EXPECT_TRUE(analyse("x = " + repeated("(", 200) + repeated(")", 200) + "\n").parsed);
  const PythonFileFacts brackets = analyse("x = " + repeated("[", 201) + repeated("]", 201) + "\n");
  EXPECT_FALSE(brackets.parsed);
  EXPECT_EQ(brackets.parse_error, "too many nested parentheses");
  auto blocks = [](int levels) {
    std::string source;
    for (int level = 0; level < levels; ++level)
      source += std::string(static_cast<std::size_t>(level), ' ') + "if x:\n";
    return source + std::string(static_cast<std::size_t>(levels), ' ') + "pass\n";
  };
  EXPECT_TRUE(analyse(blocks(99)).parsed);
  EXPECT_EQ(analyse(blocks(100)).parse_error, "too many levels of indentation");
  EXPECT_TRUE(analyse("x = " + repeated("f'{", 100) + "1" + repeated("}'", 100) + "\n").parsed);
  EXPECT_EQ(analyse("x = " + repeated("f'{", 30000) + "1" + repeated("}'", 30000) + "\n").parse_error,
            "too many nested f-strings");
  EXPECT_EQ(analyse("x = f'{1:" + repeated("{1:", 30000) + repeated("}", 30001) + "'\n").parse_error,
            "too many nested f-strings");
  EXPECT_EQ(analyse("x = f'{" + repeated("(", 300) + "'\n").parse_error, "too many nested parentheses");
}

// CPython decodes the whole file before it tokenizes (PEP 263).
TEST(PythonAnalyser, SourceMustBeUtf8UnlessAnotherEncodingIsDeclared) {
  for (const char* bad : {"x = '\xff'\n", "# caf\xe9\nx = 1\n", "x = 1  # \xed\xa0\x80\n"}) {
    const PythonFileFacts facts = analyse(bad);
    EXPECT_FALSE(facts.parsed) << bad;
    EXPECT_NE(facts.parse_error.find("Non-UTF-8 code starting with"), std::string::npos) << facts.parse_error;
  }
  EXPECT_EQ(analyse("x = 1\ny = '\xff'\n").parse_error_line, 2);
  EXPECT_TRUE(analyse("# -*- coding: latin-1 -*-\nx = '\xff'\n").parsed);
  EXPECT_TRUE(analyse("#!/usr/bin/env python\n# vim: set fileencoding=iso-8859-15 :\nx = '\xff'\n").parsed);
  EXPECT_FALSE(analyse("x = 1\n# coding: latin-1\nx = '\xff'\n").parsed);  // line 2 only after a comment line
  EXPECT_FALSE(analyse("# coding: utf-8\nx = '\xff'\n").parsed);
  EXPECT_EQ(analyse("\xEF\xBB\xBF# coding: latin-1\nx = 1\n").parse_error, "encoding problem: latin-1 with BOM");
  EXPECT_TRUE(analyse("\xEF\xBB\xBFx = 'caf\xc3\xa9'\n").parsed);
}

}  // namespace
}  // namespace kcheck
