// The DpPublisher constructor over RocksDB state (state::StateStore): the
// rest of DpPublisher works over ShareState only.
#include "service/store/store_share_state.h"
#include "service/dp/dp_publisher.h"

namespace vanon::service {

DpPublisher::DpPublisher(const config::Config& config, std::string_view hmac_key, state::StateStore* store,
                         prometheus::Registry& registry)
    : DpPublisher(config, hmac_key, std::make_unique<StoreShareState>(store), nullptr, registry) {}

}  // namespace vanon::service
