#pragma once
// KCHECK_BIND_EVERY_MEMBER(value, a, b, c) binds every member of the
// aggregate `value` by position (auto& [a, b, c] = value). A structured
// binding needs exactly as many names as the type has members, so a member
// added to the type and not to the list does not compile: a codec built
// from the list cannot forget one (the facts cache, the worker protocol).
// Name the members after themselves, for the reader; the binding is by
// position.
// NOLINTNEXTLINE(bugprone-macro-parentheses): a declaration, not an expression
#define KCHECK_BIND_EVERY_MEMBER(value, ...) auto& [__VA_ARGS__] = (value)
