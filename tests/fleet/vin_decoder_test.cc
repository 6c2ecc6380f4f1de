#include "vanon/vehicle/vin_decoder.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace vanon::fleet {
namespace {

using test::ErrorOf;
using test::WriteTempFile;

using Attrs = std::vector<std::pair<std::string, std::string>>;

const VinDecoder& ShippedTable() {
  static const VinDecoder table = VinDecoder::Load(test::SourcePath("config/vehicle/vin-table.yaml"));
  return table;
}

TEST(VinDecoderTest, DecodesShippedTableInFixedOrder) {
  // WBA = BMW, VDS 7C5E1 = Gas Long Sedan 5 seats, position 10 'L' = 2020.
  const DecodedVehicle d = ShippedTable().Decode("WBA7C5E10LA123456");
  EXPECT_TRUE(d.known);
  EXPECT_EQ(
      d.attributes,
      (Attrs{
          {"manufacturer", "BMW"}, {"engine", "Gas"}, {"body", "Long Sedan"}, {"seats", "5"}, {"model_year", "2020"}}));
  const DecodedVehicle tesla = ShippedTable().Decode("5YJXA7E19SA000001");
  EXPECT_TRUE(tesla.known);
  EXPECT_EQ(
      tesla.attributes,
      (Attrs{{"manufacturer", "Tesla"}, {"engine", "EV"}, {"body", "SUV"}, {"seats", "7"}, {"model_year", "2025"}}));
}

TEST(VinDecoderTest, UnknownVinsDecodeToTheRoot) {
  const Attrs all_root = {{"manufacturer", "*"}, {"engine", "*"}, {"body", "*"}, {"seats", "*"}, {"model_year", "*"}};
  for (const char* vin : {"XTA21099012345678",  // WMI not in the table
                          "WBAZZZZZ0LA123456",  // known WMI, unknown VDS
                          "WBA7C5E100A123456",  // no year code at position 10
                          "WBA7C5E10LA12345",   // not a VIN at all
                          ""}) {
    const DecodedVehicle d = ShippedTable().Decode(vin);
    EXPECT_FALSE(d.known) << vin;
    EXPECT_EQ(d.attributes, all_root) << vin;
  }
}

TEST(VinDecoderTest, WildcardAndFirstMatchWins) {
  const VinDecoder table = VinDecoder::Parse(R"(
model_year: {rule: position7}
manufacturers:
  - wmi: 1AB
    name: Acme
    models:
      - {vds: "AB1**", engine: EV, body: Van, seats: 9}
      - {vds: "AB***", engine: Gas, body: Van, seats: 8}
)",
                                             "inline");
  const DecodedVehicle ev = table.Decode("1ABAB1ZZ0KA000001");
  ASSERT_TRUE(ev.known);
  EXPECT_EQ(ev.attributes[1].second, "EV");
  EXPECT_EQ(ev.attributes[3].second, "9");
  EXPECT_EQ(ev.attributes[4].second, "2019");  // letter at position 7
  const DecodedVehicle gas = table.Decode("1ABAB21Z0KA000001");
  ASSERT_TRUE(gas.known);
  EXPECT_EQ(gas.attributes[1].second, "Gas");
  EXPECT_EQ(gas.attributes[4].second, "1989");  // digit at position 7
}

struct BadTable {
  const char* text;
  int line;
  const char* fragment;
};

TEST(VinDecoderTest, ErrorsNameFileAndLine) {
  const BadTable cases[] = {
      {"manufacturers:\n  - wmi: WBA\n    name: BMW\n    models:\n"
       "      - {vds: 7C5E1, engine: Gas, body: Sedan, seats: 5}\n"
       "      - {vds: 7O5E1, engine: Gas, body: Sedan, seats: 5}\n",
       6, "'vds' must be 5 VIN characters"},
      {"manufacturers:\n  - wmi: WBA\n    name: BMW\n    models:\n"
       "      - {vds: 7C5E1, engine: Gas, body: Sedan, seats: five}\n",
       5, "'seats' must be an integer"},
      {"manufacturers:\n  - wmi: WBA\n    name: BMW\n    models:\n"
       "      - {vds: 7C5E1, body: Sedan, seats: 5}\n",
       5, "missing key 'engine'"},
      {"manufacturers:\n  - wmi: WBA\n    name: BMW\n    models:\n"
       "      - {vds: 7C5E1, engine: Gas, body: Sedan, seats: 5}\n"
       "  - wmi: WBA\n    name: Other\n    models:\n"
       "      - {vds: 7C5E1, engine: Gas, body: Sedan, seats: 5}\n",
       6, "duplicate wmi 'WBA'"},
      {"manufacturers:\n  - wmi: WBA\n    name: BMW\n    models:\n"
       "      - {vds: 7C5E1, engine: Gas, body: Sedan, seats: 5}\n"
       "      - {vds: 7C5E1, engine: EV, body: Sedan, seats: 5}\n",
       6, "duplicate vds '7C5E1'"},
      {"model_year: {rule: galactic}\nmanufacturers: []\n", 1, "'rule' must be base_year"},
      {"manufacturers:\n  - wmi: WBA\n    name: [BMW\n", 4, ""},  // YAML syntax error
  };
  for (const BadTable& c : cases) {
    const std::string path = WriteTempFile("table.yaml", c.text);
    const std::string error = ErrorOf([&] { VinDecoder::Load(path); });
    const std::string prefix = path + ":" + (c.line < 0 ? "" : std::to_string(c.line) + ": ");
    EXPECT_EQ(error.rfind(prefix, 0), 0u) << error;
    if (c.line < 0) {
      EXPECT_GT(std::atoi(error.c_str() + prefix.size()), 0) << error;
    }
    EXPECT_NE(error.find(c.fragment), std::string::npos) << error;
  }
}

TEST(VinDecoderTest, MissingFileIsNamed) {
  const std::string error = ErrorOf([] { VinDecoder::Load("/nonexistent/vin-table.yaml"); });
  EXPECT_EQ(error.rfind("/nonexistent/vin-table.yaml:0: cannot open", 0), 0u) << error;
}

}  // namespace
}  // namespace vanon::fleet
