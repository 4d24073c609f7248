#include "checker/scan/fact_codec.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <type_traits>
#include <vector>

#include "checker/support/every_member.h"

namespace kcheck {
namespace {

// The member lists: one line per facts struct, serving the writer, the
// reader and the size bound alike. Each line binds the struct's members by
// position (KCHECK_BIND_EVERY_MEMBER), so a member added to a facts struct
// and not listed here does not compile: the cache cannot forget a fact. An
// older encoding is never read: every cache key holds the analyser build id,
// a hash of checker/'s sources (cmake/build_id.cmake).
#define KCHECK_FACT_MEMBERS(Type, ...)            \
  template <typename Archive>                     \
  void members(Archive& archive, Type& value) {   \
    KCHECK_BIND_EVERY_MEMBER(value, __VA_ARGS__); \
    archive(__VA_ARGS__);                         \
  }

KCHECK_FACT_MEMBERS(ElfImportedSymbol, name, version, library, weak)
KCHECK_FACT_MEMBERS(ElfVersionNeed, version, library, weak)
KCHECK_FACT_MEMBERS(ElfExportedSymbol, name, binding, visibility, type)
KCHECK_FACT_MEMBERS(DeviceCodeFacts, cuda_sass_archs, cuda_ptx_archs, hip_targets, error)
KCHECK_FACT_MEMBERS(ElfTables, torch_library_namespaces, build_leaks, read_only_data, device_code)
KCHECK_FACT_MEMBERS(ElfFacts, error, elf_class, machine, machine_name, elf_type, needed, soname, rpath, runpath,
                    imports, version_needs, exports, has_gnu_stack, executable_stack, writable_and_executable_segment,
                    has_relro, bind_now, text_relocations, has_debug_sections, debug_section_names, leaked_build_paths,
                    read_only_data_build_paths, device_code_build_paths, unsearched_device_code_entries,
                    unsearched_device_code_reason, unsearched_device_code_section, device_code_walk_stopped,
                    device_code_walk_stopped_section, device_code_walk_stopped_before_zstd, tables_read, device_code,
                    torch_library_namespaces, more_torch_library_namespaces, program_interpreter)
KCHECK_FACT_MEMBERS(MachOFacts, error, arch, libraries, imported_symbols, exported_symbols, minimum_macos)
KCHECK_FACT_MEMBERS(NativeModuleFacts, relative_path, elf, macho)
KCHECK_FACT_MEMBERS(CachedFileFacts, path, identity, sha256, racy, python_encoding, native_encoding)
KCHECK_FACT_MEMBERS(PythonImport, module, names, bound_names, level, line, is_from, in_type_checking,
                    in_import_error_guard, in_function)
KCHECK_FACT_MEMBERS(PythonSyntaxFeature, construct, minimum_python, line)
KCHECK_FACT_MEMBERS(PythonCall, callee, line, is_decorator, at_top_level, first_string_argument, first_argument_callee,
                    has_positional_argument, arguments)
KCHECK_FACT_MEMBERS(PythonClassMember, name, line)
KCHECK_FACT_MEMBERS(PythonClass, name, line, bases, methods, class_variables, annotations, at_top_level)
KCHECK_FACT_MEMBERS(PythonAttributeChain, chain, line)
KCHECK_FACT_MEMBERS(PythonFileFacts, relative_path, parsed, parse_error, parse_error_line, imports, defines_all,
                    all_names, all_line, top_level_names, has_star_import, classes, calls, torch_ops_chains,
                    newer_syntax, future_annotations)
#undef KCHECK_FACT_MEMBERS

template <typename T>
struct is_vector : std::false_type {};
template <typename T>
struct is_vector<std::vector<T>> : std::true_type {};
template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};

// Little-endian fixed-width integers, length-prefixed strings and sequences,
// a presence byte for optionals.
class Writer {
 public:
  template <typename... Values>
  void operator()(Values&... values) {
    (write(values), ...);
  }
  std::string take() { return std::move(bytes_); }

 private:
  void write_u64(std::uint64_t value) {
    char raw[8];
    for (int i = 0; i < 8; ++i) raw[i] = static_cast<char>((value >> (8 * i)) & 0xff);
    bytes_.append(raw, 8);
  }
  template <typename T>
  void write(T& value) {
    if constexpr (std::is_same_v<T, std::string>) {
      write_u64(value.size());
      bytes_ += value;
    } else if constexpr (std::is_same_v<T, bool>) {
      bytes_ += value ? '\1' : '\0';
    } else if constexpr (std::is_enum_v<T>) {
      write_u64(static_cast<std::uint64_t>(value));
    } else if constexpr (std::is_integral_v<T>) {
      write_u64(static_cast<std::uint64_t>(static_cast<std::int64_t>(value)));
    } else if constexpr (std::is_same_v<T, Version>) {
      std::vector<std::uint32_t> components = value.components();
      write(components);
    } else if constexpr (is_vector<T>::value) {
      write_u64(value.size());
      for (auto& item : value) write(item);
    } else if constexpr (is_optional<T>::value) {
      bool present = value.has_value();
      write(present);
      if (present) write(*value);
    } else {
      members(*this, value);
    }
  }
  std::string bytes_;
};

// The fewest bytes an encoding of a value can take (strings and sequences
// empty, optionals absent), found by walking a default value's member list.
class MinimumSize {
 public:
  template <typename... Values>
  void operator()(Values&... values) {
    (add(values), ...);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  template <typename T>
  void add(T& value) {
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, Version> || is_vector<T>::value) {
      bytes_ += 8;  // the length
    } else if constexpr (std::is_same_v<T, bool> || is_optional<T>::value) {
      bytes_ += 1;  // the value, or the presence byte
    } else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
      bytes_ += 8;
    } else {
      members(*this, value);
    }
  }
  std::size_t bytes_ = 0;
};

template <typename T>
std::size_t minimum_encoded_size() {
  static const std::size_t size = [] {
    T value{};
    MinimumSize minimum;
    minimum(value);
    return std::max<std::size_t>(minimum.bytes(), 1);
  }();
  return size;
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  template <typename... Values>
  void operator()(Values&... values) {
    (read(values), ...);
  }
  bool complete() const { return ok_ && bytes_.empty(); }

 private:
  bool take(std::size_t size, const char*& data) {
    if (!ok_ || bytes_.size() < size) return ok_ = false;
    data = bytes_.data();
    bytes_.remove_prefix(size);
    return true;
  }
  std::uint64_t read_u64() {
    const char* raw = nullptr;
    if (!take(8, raw)) return 0;
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value |= std::uint64_t(static_cast<unsigned char>(raw[i])) << (8 * i);
    return value;
  }
  // A count can never exceed what the bytes left can hold (each item takes
  // at least `item_bytes`), so a corrupt or planted length cannot make the
  // reader allocate more than a few times the entry's size.
  std::size_t read_count(std::size_t item_bytes = 1) {
    const std::uint64_t count = read_u64();
    if (count > bytes_.size() / item_bytes) ok_ = false;
    return ok_ ? static_cast<std::size_t>(count) : 0;
  }
  template <typename T>
  void read(T& value) {
    if constexpr (std::is_same_v<T, std::string>) {
      const std::size_t size = read_count();
      const char* data = nullptr;
      if (take(size, data)) value.assign(data, size);
    } else if constexpr (std::is_same_v<T, bool>) {
      const char* data = nullptr;
      if (take(1, data)) value = *data != 0;
    } else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
      value = static_cast<T>(read_u64());
    } else if constexpr (std::is_same_v<T, Version>) {
      std::vector<std::uint32_t> components;
      read(components);
      value = Version(std::move(components));
    } else if constexpr (is_vector<T>::value) {
      // Grown item by item, never to the claimed count at once: an item
      // takes more memory decoded than its fewest encoded bytes, so a
      // planted count could otherwise claim many times the entry's size.
      const std::size_t count = read_count(minimum_encoded_size<typename T::value_type>());
      value.clear();
      for (std::size_t i = 0; i < count && ok_; ++i) read(value.emplace_back());
    } else if constexpr (is_optional<T>::value) {
      bool present = false;
      read(present);
      if (present) read(value.emplace());
    } else {
      members(*this, value);
    }
  }
  std::string_view bytes_;
  bool ok_ = true;
};

template <typename Facts>
std::string encode(const Facts& facts) {
  Writer writer;
  writer(const_cast<Facts&>(facts));  // the writer never modifies what it reads
  return writer.take();
}

template <typename Facts>
std::optional<Facts> decode(std::string_view bytes) {
  Facts facts;
  Reader reader(bytes);
  reader(facts);
  if (!reader.complete()) return std::nullopt;
  return facts;
}

}  // namespace

std::string encode_python_facts(const PythonFileFacts& facts) { return encode(facts); }
std::string encode_native_facts(const NativeModuleFacts& facts) { return encode(facts); }
std::optional<PythonFileFacts> decode_python_facts(std::string_view bytes) { return decode<PythonFileFacts>(bytes); }
std::optional<NativeModuleFacts> decode_native_facts(std::string_view bytes) {
  return decode<NativeModuleFacts>(bytes);
}
std::string encode_cached_files(const std::vector<CachedFileFacts>& files) { return encode(files); }
std::optional<std::vector<CachedFileFacts>> decode_cached_files(std::string_view bytes) {
  return decode<std::vector<CachedFileFacts>>(bytes);
}

}  // namespace kcheck
