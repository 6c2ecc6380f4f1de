#include "service/store/state_version.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <stdexcept>
#include <string>

#include "service/store/record_names.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

namespace {
constexpr const char* kMetaName = kStateVersionMeta;
}  // namespace

int MigrateStateVersion(state::StateStore* store) {
  int found = 1;
  if (std::optional<std::string> v = store->GetMeta(state::kStoreWideMeta, kMetaName)) {
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), found);
    if (ec != std::errc() || end != v->data() + v->size() || found < 1) {
      throw std::runtime_error("state: unreadable state_version record");
    }
  }
  if (found > kStateVersion) {
    throw std::runtime_error("state: written by a newer vanon (state version " + std::to_string(found) +
                             ", this build reads up to " + std::to_string(kStateVersion) + ")");
  }
  if (found == kStateVersion) return found;
  // 1 -> 2. Buffered events keep the trip tokens they were stored with (state
  // holds no raw trip id to hash again): a trip that spans the upgrade shows
  // as two trips in the DP trip counts of the epoch open at the upgrade.
  // Vehicle tokens, and so signatures and waiting tuples, are unchanged.
  spdlog::info(
      "state: version {} -> {}: trip tokens are domain-separated from now on; buffered events keep "
      "theirs (a trip spanning the upgrade counts twice in that epoch's DP trip counts)",
      found, kStateVersion);
  state::ReleaseWrite w(*store);
  w.PutMeta(state::kStoreWideMeta, kMetaName, std::to_string(kStateVersion));
  store->Commit(w, state::Durability::kMachineCrash);
  return found;
}

}  // namespace vanon::service
