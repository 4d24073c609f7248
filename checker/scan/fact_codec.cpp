#include "checker/scan/fact_codec.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <type_traits>
#include <vector>

namespace kcheck {
namespace {

// The member lists: one function per facts struct, used by the writer and
// the reader alike (the writer only reads through the reference).
template <typename Archive> void members(Archive& a, ElfImportedSymbol& s) { a(s.name, s.version, s.library, s.weak); }
template <typename Archive> void members(Archive& a, ElfVersionNeed& n) { a(n.version, n.library, n.weak); }
template <typename Archive> void members(Archive& a, ElfExportedSymbol& s) { a(s.name, s.binding, s.visibility, s.type); }
template <typename Archive> void members(Archive& a, DeviceCodeFacts& d) {
  a(d.cuda_sass_archs, d.cuda_ptx_archs, d.hip_targets, d.error);
}
template <typename Archive> void members(Archive& a, ElfTables& t) {
  a(t.torch_library_namespaces, t.build_leaks, t.read_only_data, t.device_code);
}
template <typename Archive> void members(Archive& a, ElfFacts& e) {
  a(e.error, e.elf_class, e.machine, e.machine_name, e.elf_type, e.needed, e.soname, e.rpath, e.runpath, e.imports,
    e.version_needs, e.exports, e.has_gnu_stack, e.executable_stack, e.writable_and_executable_segment, e.has_relro, e.bind_now,
    e.text_relocations, e.has_debug_sections, e.debug_section_names, e.leaked_build_paths, e.read_only_data_build_paths,
    e.tables_read, e.device_code,
    e.torch_library_namespaces, e.more_torch_library_namespaces, e.program_interpreter);
}
template <typename Archive> void members(Archive& a, MachOFacts& m) {
  a(m.error, m.arch, m.libraries, m.imported_symbols, m.exported_symbols, m.minimum_macos);
}
template <typename Archive> void members(Archive& a, NativeModuleFacts& n) { a(n.relative_path, n.elf, n.macho); }
template <typename Archive> void members(Archive& a, CachedFileFacts& f) { a(f.path, f.identity, f.sha256, f.racy, f.python_encoding, f.native_encoding); }

template <typename Archive> void members(Archive& a, PythonImport& i) {
  a(i.module, i.names, i.bound_names, i.level, i.line, i.is_from, i.in_type_checking, i.in_import_error_guard, i.in_function);
}
template <typename Archive> void members(Archive& a, PythonSyntaxFeature& f) { a(f.construct, f.minimum_python, f.line); }
template <typename Archive> void members(Archive& a, PythonCall& c) {
  a(c.callee, c.line, c.is_decorator, c.at_top_level, c.first_string_argument, c.first_argument_callee,
    c.has_positional_argument, c.arguments);
}
template <typename Archive> void members(Archive& a, PythonClassMember& m) { a(m.name, m.line); }
template <typename Archive> void members(Archive& a, PythonClass& c) {
  a(c.name, c.line, c.bases, c.methods, c.class_variables, c.annotations, c.at_top_level);
}
template <typename Archive> void members(Archive& a, PythonAttributeChain& c) { a(c.chain, c.line); }
template <typename Archive> void members(Archive& a, PythonFileFacts& f) {
  a(f.relative_path, f.parsed, f.parse_error, f.parse_error_line, f.imports, f.defines_all, f.all_names, f.all_line,
    f.top_level_names, f.has_star_import, f.classes, f.calls, f.torch_ops_chains, f.newer_syntax,
    f.future_annotations);
}

template <typename T> struct is_vector : std::false_type {};
template <typename T> struct is_vector<std::vector<T>> : std::true_type {};
template <typename T> struct is_optional : std::false_type {};
template <typename T> struct is_optional<std::optional<T>> : std::true_type {};

// Little-endian fixed-width integers, length-prefixed strings and sequences,
// a presence byte for optionals.
class Writer {
 public:
  template <typename... Values> void operator()(Values&... values) { (write(values), ...); }
  std::string take() { return std::move(bytes_); }

 private:
  void write_u64(std::uint64_t value) {
    char raw[8];
    for (int i = 0; i < 8; ++i) raw[i] = static_cast<char>((value >> (8 * i)) & 0xff);
    bytes_.append(raw, 8);
  }
  template <typename T> void write(T& value) {
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
  template <typename... Values> void operator()(Values&... values) { (add(values), ...); }
  std::size_t bytes() const { return bytes_; }

 private:
  template <typename T> void add(T& value) {
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

template <typename T> std::size_t minimum_encoded_size() {
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
  template <typename... Values> void operator()(Values&... values) { (read(values), ...); }
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
  template <typename T> void read(T& value) {
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

template <typename Facts> std::string encode(const Facts& facts) {
  Writer writer;
  writer(const_cast<Facts&>(facts));  // the writer never modifies what it reads
  return writer.take();
}

template <typename Facts> std::optional<Facts> decode(std::string_view bytes) {
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
std::optional<NativeModuleFacts> decode_native_facts(std::string_view bytes) { return decode<NativeModuleFacts>(bytes); }
std::string encode_cached_files(const std::vector<CachedFileFacts>& files) { return encode(files); }
std::optional<std::vector<CachedFileFacts>> decode_cached_files(std::string_view bytes) {
  return decode<std::vector<CachedFileFacts>>(bytes);
}

}  // namespace kcheck
