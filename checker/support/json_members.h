#pragma once
// KCHECK_JSON_MEMBERS(Type, a, b, c) defines to_json and from_json (found by
// nlohmann::json through argument-dependent lookup) for the aggregate Type:
// one JSON key per member, named as the member is. The list binds every
// member by position (KCHECK_BIND_EVERY_MEMBER), so a member added to Type
// and not to the list does not compile: a JSON codec built from it cannot
// forget a field, as the facts cache's codec cannot (scan/fact_codec.cpp).
// Reading, every key must be there (nlohmann::json::out_of_range otherwise),
// but those KCHECK_JSON_OPTIONAL names, which keep the member as the type
// initialises it when absent (a report of an older kcheck lacks newer keys);
// a key of another type throws nlohmann::json::exception. Use it in the
// namespace of Type. The binding is by position and the keys are the names
// the list gives, so the names must be the members' own, in their order:
// tests/report/report_json_test.cpp checks every key of every type.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "checker/support/every_member.h"

namespace kcheck::json_members {

// "a, b,\n  c" (the macro's stringised list) -> {"a", "b", "c"}.
template <std::size_t Count>
std::array<std::string_view, Count> member_names(std::string_view list) {
  std::array<std::string_view, Count> names{};
  for (std::size_t index = 0; index < Count; ++index) {
    const std::size_t comma = list.find(',');
    std::string_view name = list.substr(0, comma);
    while (!name.empty() && (name.front() == ' ' || name.front() == '\n')) name.remove_prefix(1);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\n')) name.remove_suffix(1);
    names[index] = name;
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return names;
}

template <typename... Members>
void write(nlohmann::json& json, std::string_view list, const Members&... members) {
  const auto names = member_names<sizeof...(Members)>(list);
  json = nlohmann::json::object();
  std::size_t index = 0;
  ((json[std::string(names[index++])] = members), ...);
}

// Whether `name` is one of the space-separated `optional` names.
inline bool is_optional(std::string_view optional, std::string_view name) {
  while (!optional.empty()) {
    const std::size_t space = optional.find(' ');
    if (optional.substr(0, space) == name) return true;
    optional = space == std::string_view::npos ? std::string_view() : optional.substr(space + 1);
  }
  return false;
}

template <typename Member>
void read_member(const nlohmann::json& json, std::string_view name, std::string_view optional, Member& member) {
  if (const auto found = json.find(name); found != json.end())
    found->get_to(member);
  else if (!is_optional(optional, name))
    throw nlohmann::json::out_of_range::create(403, "key '" + std::string(name) + "' not found", &json);
}

template <typename... Members>
void read(const nlohmann::json& json, std::string_view optional, std::string_view list, Members&... members) {
  if (!json.is_object()) throw nlohmann::json::type_error::create(302, "type must be object", &json);
  const auto names = member_names<sizeof...(Members)>(list);
  std::size_t index = 0;
  (read_member(json, names[index++], optional, members), ...);
}

}  // namespace kcheck::json_members

// KCHECK_JSON_MEMBERS(Type, KCHECK_JSON_OPTIONAL("python torch"), variant, ran, python, torch)
#define KCHECK_JSON_OPTIONAL(names) names
#define KCHECK_JSON_MEMBERS(Type, optional, ...)                             \
  inline void to_json(nlohmann::json& json, const Type& value) {             \
    KCHECK_BIND_EVERY_MEMBER(value, __VA_ARGS__);                            \
    ::kcheck::json_members::write(json, #__VA_ARGS__, __VA_ARGS__);          \
  }                                                                          \
  inline void from_json(const nlohmann::json& json, Type& value) {           \
    KCHECK_BIND_EVERY_MEMBER(value, __VA_ARGS__);                            \
    ::kcheck::json_members::read(json, optional, #__VA_ARGS__, __VA_ARGS__); \
  }
