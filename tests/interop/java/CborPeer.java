// Jackson's CBOR module as an interoperability peer for jbx, using only the
// streaming API (jackson-core and jackson-dataformat-cbor; databind is not
// needed): each job copies every root value of IN to OUT.
//
//   java -cp CLASSPATH CborPeer encode IN.json OUT.cbor [decode IN.cbor OUT.json ...]
//
// encode: JSON text (one or more root values) to a CBOR sequence;
// decode: a CBOR sequence to JSON text, one root value per line.
// Several jobs run in one JVM, so the start-up is paid once.
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import java.io.File;

public final class CborPeer {
  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args.length % 3 != 0) {
      System.err.println("usage: CborPeer (encode|decode) IN OUT ...");
      System.exit(2);
    }
    JsonFactory json = new JsonFactory();
    CBORFactory cbor = new CBORFactory();
    for (int i = 0; i < args.length; i += 3) {
      boolean encode = args[i].equals("encode");
      if (!encode && !args[i].equals("decode")) {
        System.err.println("unknown mode " + args[i]);
        System.exit(2);
      }
      JsonFactory from = encode ? json : cbor;
      JsonFactory to = encode ? cbor : json;
      try (JsonParser p = from.createParser(new File(args[i + 1]));
           JsonGenerator g = to.createGenerator(new File(args[i + 2]),
               com.fasterxml.jackson.core.JsonEncoding.UTF8)) {
        if (!encode) g.setRootValueSeparator(new SerializedString("\n"));
        while (p.nextToken() != null) g.copyCurrentStructure(p);
      }
    }
  }
}
