// Turns an accepted event into its vehicle's quasi-identifier values, from
// the configured source: the VIN decoding table, a registry CSV, or event
// fields. It runs at ingestion, before the raw VIN is dropped: after this
// point vanon only knows the vehicle by its HMAC and its QIs.
#ifndef VANON_SERVICE_QI_RESOLVER_H_
#define VANON_SERVICE_QI_RESOLVER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vanon/config.h"
#include "vanon/ingest/parsed_event.h"

namespace vanon::service {

class QiResolver {
 public:
  // Loads the table or registry. `extras` is the list of event paths the
  // parser extracts; the resolver appends the ones it needs and remembers
  // their positions. Throws config::KeyError naming the key refused: the
  // QI or registry column the source cannot provide, or the data file (and
  // its line) that cannot be read. `vanon validate-config` and `vanon run`
  // both call it through LoadConfig's check (src/cli/main.cc), so both
  // refuse such a config at start with FILE:LINE: key.
  static std::unique_ptr<QiResolver> Create(const config::Config& config, std::vector<std::string>* extras);
  // Creates and drops a resolver: the check passed to config::LoadConfig.
  static void Check(const config::Config& config);
  virtual ~QiResolver() = default;

  // Fills one value per configured QI, in config order. Returns false when
  // the source does not know the vehicle (values are then the root "*").
  virtual bool Resolve(const ingest::ParsedEvent& event, std::vector<std::string>* qi) const = 0;

  // True when the values depend on the VIN alone (table, registry), so a
  // caller may cache them per vehicle.
  virtual bool DependsOnVinOnly() const { return true; }

  // sensitive.aggregator: registry: the vehicle's value in the registry's
  // sensitive.registry_column; nullopt when the registry does not know the
  // vehicle (or the aggregator is another one).
  virtual std::optional<std::string> SensitiveValue(const ingest::ParsedEvent&) const { return std::nullopt; }
};

}  // namespace vanon::service

#endif  // VANON_SERVICE_QI_RESOLVER_H_
