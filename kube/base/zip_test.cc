#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "kube/base/zip_reader.h"
#include "kube/base/zip_writer.h"

namespace kai {
namespace {

std::string Binary() {
  std::string s;
  for (int i = 0; i < 70000; ++i) s.push_back(static_cast<char>((i * 7919) & 0xff));
  return s;
}

std::string Finished(ZipWriter& w) {
  auto zip = w.Finish();
  EXPECT_TRUE(zip.ok()) << zip.status();
  return zip.ok() ? *zip : std::string();
}

TEST(Crc32Test, KnownValues) {
  EXPECT_EQ(Crc32(""), 0u);
  EXPECT_EQ(Crc32("123456789"), 0xCBF43926u);  // the standard check value
}

TEST(ZipTest, RoundTripSeveralEntriesEmptyAndBinary) {
  ZipWriter w;
  w.Add("snapshot.json", "{\"a\":1}");
  w.Add("empty", "");
  w.Add("dir/binary.bin", Binary());
  std::string zip = Finished(w);
  EXPECT_TRUE(LooksLikeZip(zip));
  auto entries = ReadZip(zip);
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0].name, "snapshot.json");
  EXPECT_EQ((*entries)[0].data, "{\"a\":1}");
  EXPECT_EQ((*entries)[1].name, "empty");
  EXPECT_EQ((*entries)[1].data, "");
  EXPECT_EQ((*entries)[2].name, "dir/binary.bin");
  EXPECT_EQ((*entries)[2].data, Binary());
  auto one = ReadZipEntry(zip, "dir/binary.bin");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, Binary());
}

TEST(ZipTest, DeterministicBytes) {
  ZipWriter a, b;
  a.Add("x", "same");
  b.Add("x", "same");
  EXPECT_EQ(Finished(a), Finished(b));
}

TEST(ZipTest, EmptyArchive) {
  ZipWriter w;
  std::string zip = Finished(w);
  auto entries = ReadZip(zip);
  ASSERT_TRUE(entries.ok()) << entries.status();
  EXPECT_TRUE(entries->empty());
}

TEST(ZipTest, MissingEntryIsNotFound) {
  ZipWriter w;
  w.Add("other.json", "{}");
  auto r = ReadZipEntry(Finished(w), "snapshot.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "no entry snapshot.json");
}

TEST(ZipTest, RejectsNonZip) {
  auto r = ReadZip("{\"rawObjects\":{}}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a zip archive"), std::string::npos);
}

TEST(ZipTest, RejectsEveryTruncation) {
  ZipWriter w;
  w.Add("snapshot.json", std::string(300, 'x'));
  w.Add("b", "yy");
  const std::string zip = Finished(w);
  for (size_t n = 0; n < zip.size(); ++n) {
    auto r = ReadZip(zip.substr(0, n));
    EXPECT_FALSE(r.ok()) << "prefix of " << n << " bytes accepted";
  }
}

// The error of reading an archive of one entry `name` whose data has a flipped byte.
std::string ErrorWithADamagedByte(const std::string& name, const std::string& data) {
  ZipWriter w;
  w.Add(name, data);
  std::string zip = Finished(w);
  zip[30 + name.size() + 1] ^= 0x01;  // a byte of the data, after the 30-byte header and the name
  auto r = ReadZip(zip);
  return r.ok() ? "read" : std::string(r.status().message());
}

TEST(ZipTest, RejectsCrcMismatch) {
  EXPECT_EQ(ErrorWithADamagedByte("snapshot.json", "{\"config\":{}}"),
            "CRC mismatch in snapshot.json");
}

// A damaged name may hold any byte; the message shows it escaped, so that it stays readable text.
TEST(ZipTest, MessagesEscapeTheBytesOfADamagedName) {
  EXPECT_EQ(ErrorWithADamagedByte("snap\x01\xff.json", "{}"),
            "CRC mismatch in snap\\x01\\xff.json");
}

TEST(ZipTest, CorruptBytesNeverCrash) {
  ZipWriter w;
  w.Add("snapshot.json", std::string(100, 'x'));
  w.Add("b", Binary().substr(0, 500));
  const std::string zip = Finished(w);
  for (size_t i = 0; i < zip.size(); ++i) {
    for (int bit : {0, 7}) {
      std::string bad = zip;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      auto r = ReadZip(bad);  // either an error or a successful read; never a crash
      if (r.ok()) {
        size_t total = 0;
        for (const auto& e : *r) total += e.data.size();
        EXPECT_LE(total, zip.size());
      }
    }
  }
}

// An archive as Go's archive/zip writes it: deflated entries, a data descriptor after the data
// and zero CRC/sizes in the local header.
std::string GoStyleDeflatedZip(const std::string& name, const std::string& data, bool corrupt) {
  std::string deflated(compressBound(data.size()) + 64, '\0');
  z_stream zs{};
  deflateInit2(&zs, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(deflated.data());
  zs.avail_out = static_cast<uInt>(deflated.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  deflated.resize(zs.total_out);
  deflateEnd(&zs);
  if (corrupt) deflated[deflated.size() / 2] ^= 0x55;
  auto p16 = [](std::string* o, uint32_t v) {
    o->push_back(static_cast<char>(v & 0xff));
    o->push_back(static_cast<char>((v >> 8) & 0xff));
  };
  auto p32 = [&](std::string* o, uint32_t v) {
    p16(o, v & 0xffff);
    p16(o, v >> 16);
  };
  const uint32_t crc = Crc32(data);
  std::string z;
  p32(&z, 0x04034b50);
  p16(&z, 20);
  p16(&z, 0x8);  // data descriptor follows
  p16(&z, 8);
  p16(&z, 0);
  p16(&z, 0x21);
  p32(&z, 0);
  p32(&z, 0);
  p32(&z, 0);
  p16(&z, static_cast<uint32_t>(name.size()));
  p16(&z, 0);
  z += name;
  z += deflated;
  p32(&z, 0x08074b50);
  p32(&z, crc);
  p32(&z, static_cast<uint32_t>(deflated.size()));
  p32(&z, static_cast<uint32_t>(data.size()));
  const uint32_t cd = static_cast<uint32_t>(z.size());
  p32(&z, 0x02014b50);
  p16(&z, 20);
  p16(&z, 20);
  p16(&z, 0x8);
  p16(&z, 8);
  p16(&z, 0);
  p16(&z, 0x21);
  p32(&z, crc);
  p32(&z, static_cast<uint32_t>(deflated.size()));
  p32(&z, static_cast<uint32_t>(data.size()));
  p16(&z, static_cast<uint32_t>(name.size()));
  p16(&z, 0);
  p16(&z, 0);
  p16(&z, 0);
  p16(&z, 0);
  p32(&z, 0);
  p32(&z, 0);
  z += name;
  const uint32_t cd_size = static_cast<uint32_t>(z.size()) - cd;
  p32(&z, 0x06054b50);
  p16(&z, 0);
  p16(&z, 0);
  p16(&z, 1);
  p16(&z, 1);
  p32(&z, cd_size);
  p32(&z, cd);
  p16(&z, 0);
  return z;
}

TEST(ZipTest, ReadsDeflatedEntriesWithDataDescriptors) {
  std::string json = "{\"rawObjects\":{\"pods\":[" + std::string(5000, ' ') + "]}}";
  auto r = ReadZipEntry(GoStyleDeflatedZip("snapshot.json", json, false), "snapshot.json");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, json);
}

TEST(ZipTest, RejectsCorruptDeflateData) {
  std::string json = "{\"rawObjects\":{\"pods\":[" + Binary().substr(0, 3000) + "]}}";
  auto r = ReadZip(GoStyleDeflatedZip("snapshot.json", json, true));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("snapshot.json"), std::string::npos) << r.status();
}

// The classic format cannot describe a 65535th entry or a name past 65535 bytes: the writer
// refuses them instead of writing an archive whose counts wrapped around.
TEST(ZipTest, WriterRefusesEntriesPastTheClassicLimits) {
  ZipWriter many;
  for (int i = 0; i < 65534; ++i) many.Add("e" + std::to_string(i), "");
  ZipWriter copy = many;
  auto full = copy.Finish();
  ASSERT_TRUE(full.ok()) << full.status();
  auto entries = ReadZip(*full);
  ASSERT_TRUE(entries.ok()) << entries.status();
  EXPECT_EQ(entries->size(), 65534u);
  many.Add("one-too-many", "x");
  auto r = many.Finish();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(r.status().message(),
            "zip entry one-too-many: the classic zip format allows at most 65534 entries");

  ZipWriter long_name;
  long_name.Add(std::string(65535, 'n'), "fits");
  EXPECT_TRUE(long_name.Finish().ok());
  ZipWriter too_long;
  too_long.Add(std::string(65536, 'n'), "x");
  too_long.Add("later", "entries after a refused one are not written either");
  auto t = too_long.Finish();
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("names of at most 65535 bytes"), std::string::npos)
      << t.status();
}

}  // namespace
}  // namespace kai
