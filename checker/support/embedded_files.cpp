#include "checker/support/embedded_files.h"

namespace kcheck {

std::optional<std::string_view> find_embedded_file(std::string_view path) {
  for (const EmbeddedFile& file : embedded_files())
    if (file.path == path) return file.content;
  return std::nullopt;
}

}  // namespace kcheck
