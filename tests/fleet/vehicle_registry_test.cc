#include "vanon/vehicle/vehicle_registry.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace vanon::fleet {
namespace {

using test::ErrorOf;
using test::WriteTempFile;

using Attrs = std::vector<std::pair<std::string, std::string>>;

TEST(VehicleRegistryTest, LooksUpByKeyColumnInHeaderOrder) {
  const std::string path = WriteTempFile("registry.csv",
                                         "engine,vin,body,home_region\r\n"
                                         "EV,WBA7C5E10LA123456,Sedan,\"Munich, north\"\r\n"
                                         "Gas,5YJXA7E19SA000001,\"Long \"\"S\"\" Sedan\",Augsburg\n"
                                         "\n"
                                         "Hybrid,W1KZF4HB0MA000003,SUV,\"two\nlines\"\n");
  const VehicleRegistry registry = VehicleRegistry::LoadCsv(path, "vin");
  EXPECT_EQ(registry.size(), 3u);
  EXPECT_EQ(registry.attribute_names(), (std::vector<std::string>{"engine", "body", "home_region"}));
  const DecodedVehicle a = registry.Lookup("WBA7C5E10LA123456");
  EXPECT_TRUE(a.known);
  EXPECT_EQ(a.attributes, (Attrs{{"engine", "EV"}, {"body", "Sedan"}, {"home_region", "Munich, north"}}));
  EXPECT_EQ(registry.Lookup("5YJXA7E19SA000001").attributes[1].second, "Long \"S\" Sedan");
  EXPECT_EQ(registry.Lookup("W1KZF4HB0MA000003").attributes[2].second, "two\nlines");
}

TEST(VehicleRegistryTest, AbsentVehicleIsRootEverywhere) {
  const std::string path = WriteTempFile("registry.csv", "vin,engine,body\nWBA7C5E10LA123456,EV,Sedan\n");
  const DecodedVehicle d = VehicleRegistry::LoadCsv(path, "vin").Lookup("XTA21099012345678");
  EXPECT_FALSE(d.known);
  EXPECT_EQ(d.attributes, (Attrs{{"engine", "*"}, {"body", "*"}}));
}

struct BadCsv {
  const char* text;
  int line;
  const char* fragment;
};

TEST(VehicleRegistryTest, ErrorsNameFileAndLine) {
  const BadCsv cases[] = {
      {"id,engine\nA,EV\nB,Gas,extra\n", 3, "expected 2 fields, found 3"},
      {"id,engine\nA,EV\n\nA,Gas\n", 4, "duplicate key"},
      {"vin,engine\nA,EV\n", 1, "no key column 'id'"},
      {"id,engine\nA,EV\n,Gas\n", 3, "empty key"},
      {"id,engine\nA,\"EV\nB,Gas\n", 2, "unterminated quoted field"},
      {"", 0, "empty file"},
  };
  for (const BadCsv& c : cases) {
    const std::string path = WriteTempFile("bad.csv", c.text);
    const std::string error = ErrorOf([&] { VehicleRegistry::LoadCsv(path, "id"); });
    EXPECT_EQ(error.rfind(path + ":" + std::to_string(c.line) + ": ", 0), 0u) << error;
    EXPECT_NE(error.find(c.fragment), std::string::npos) << error;
  }
  const std::string missing = ErrorOf([] { VehicleRegistry::LoadCsv("/nonexistent.csv", "id"); });
  EXPECT_EQ(missing.rfind("/nonexistent.csv:0: ", 0), 0u) << missing;
}

}  // namespace
}  // namespace vanon::fleet
