// A small JSON <-> CBOR converter on Jackson's streaming API (jackson-core and
// jackson-dataformat-cbor from Debian), used by bench/run as the JVM peer of
// `jbx convert`. It reads a file and writes the converted stream to stdout,
// as a command-line tool would; it is not part of jbx.
//
//   java -cp CLASSPATH JacksonConvert json2cbor|cbor2json FILE
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.OutputStream;

public final class JacksonConvert {
  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: JacksonConvert json2cbor|cbor2json FILE");
      System.exit(2);
    }
    JsonFactory json = new JsonFactory();
    CBORFactory cbor = new CBORFactory();
    JsonFactory in;
    JsonFactory out;
    switch (args[0]) {
      case "json2cbor": in = json; out = cbor; break;
      case "cbor2json": in = cbor; out = json; break;
      default:
        System.err.println("unknown mode: " + args[0]);
        System.exit(2);
        return;
    }
    OutputStream stdout =
        new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
    try (JsonParser p = in.createParser(new File(args[1]));
         JsonGenerator g = out.createGenerator(stdout)) {
      // Several top-level values (JSON Lines, CBOR sequences) are copied one
      // after another; JSON output separates them with a newline.
      if (out == json) g.setRootValueSeparator(null);
      boolean first = true;
      while (p.nextToken() != null) {
        if (!first && out == json) g.writeRaw('\n');
        g.copyCurrentStructure(p);
        first = false;
      }
      if (out == json) g.writeRaw('\n');
    }
  }
}
