// dumpdict prints the words of ICU's Thai word-break dictionary
// (brkitr/thaidict.dict in the ICU data the system's libicu carries), one a
// line, to standard output. words.txt.gz is its output, sorted and gzipped:
//
//	apt-get install g++ libicu-dev pkg-config
//	g++ -O2 dumpdict.cc $(pkg-config --cflags --libs icu-uc) -o /tmp/dumpdict
//	/tmp/dumpdict | LC_ALL=C sort -u | gzip -9 -n > ../words.txt.gz
//
// The dictionary is a BytesTrie whose bytes are code points less an offset
// (U+0E00 for Thai); 0xFE and 0xFF stand for ZWNJ and ZWJ.
#include <unicode/bytestrie.h>
#include <unicode/udata.h>
#include <unicode/unistr.h>

#include <cstdio>
#include <string>

int main() {
  UErrorCode status = U_ZERO_ERROR;
  UDataMemory *mem = udata_open(U_ICUDATA_NAME U_TREE_SEPARATOR_STRING "brkitr", "dict", "thaidict", &status);
  if (U_FAILURE(status)) {
    std::fprintf(stderr, "dumpdict: open thaidict: %s\n", u_errorName(status));
    return 1;
  }
  const auto *data = static_cast<const uint8_t *>(udata_getMemory(mem));
  const auto *indexes = reinterpret_cast<const int32_t *>(data);
  const int32_t trieOffset = indexes[0], trieType = indexes[4], transform = indexes[5];
  if ((trieType & 7) != 0 || (transform & 0x7f000000) != 0x01000000) {
    std::fprintf(stderr, "dumpdict: not an offset-transformed byte trie\n");
    return 1;
  }
  const UChar32 base = transform & 0x1fffff;
  icu::BytesTrie::Iterator it(data + trieOffset, 0, status);
  long words = 0;
  while (it.next(status)) {
    icu::UnicodeString word;
    const icu::StringPiece bytes = it.getString();
    for (int32_t i = 0; i < bytes.length(); i++) {
      const auto b = static_cast<uint8_t>(bytes.data()[i]);
      word.append(b == 0xff ? 0x200d : b == 0xfe ? 0x200c : base + b);
    }
    std::string out;
    std::printf("%s\n", word.toUTF8String(out).c_str());
    words++;
  }
  udata_close(mem);
  std::fprintf(stderr, "dumpdict: %ld words (%s)\n", words, u_errorName(status));
  return U_FAILURE(status) ? 1 : 0;
}
