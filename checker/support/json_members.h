#pragma once
// KCHECK_JSON_MEMBERS(Type, a, b, c) defines to_json and from_json (found by
// nlohmann::json through argument-dependent lookup) for the aggregate Type:
// one JSON key per member, named as the member is. The list binds every
// member by position (KCHECK_BIND_EVERY_MEMBER), so a member added to Type
// and not to the list does not compile: a JSON codec built from it cannot
// forget a field, as the facts cache's codec cannot (scan/fact_codec.cpp).
// Reading, a key that is absent leaves the member as the type initialises it
// (a report of an older kcheck lacks newer keys); a key of another type
// throws nlohmann::json::exception. Use it in the namespace of Type.
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

template <typename Member>
void read_member(const nlohmann::json& json, std::string_view name, Member& member) {
  if (const auto found = json.find(name); found != json.end()) found->get_to(member);
}

template <typename... Members>
void read(const nlohmann::json& json, std::string_view list, Members&... members) {
  if (!json.is_object()) throw nlohmann::json::type_error::create(302, "type must be object", &json);
  const auto names = member_names<sizeof...(Members)>(list);
  std::size_t index = 0;
  (read_member(json, names[index++], members), ...);
}

}  // namespace kcheck::json_members

#define KCHECK_JSON_MEMBERS(Type, ...)                              \
  inline void to_json(nlohmann::json& json, const Type& value) {    \
    KCHECK_BIND_EVERY_MEMBER(value, __VA_ARGS__);                   \
    ::kcheck::json_members::write(json, #__VA_ARGS__, __VA_ARGS__); \
  }                                                                 \
  inline void from_json(const nlohmann::json& json, Type& value) {  \
    KCHECK_BIND_EVERY_MEMBER(value, __VA_ARGS__);                   \
    ::kcheck::json_members::read(json, #__VA_ARGS__, __VA_ARGS__);  \
  }
