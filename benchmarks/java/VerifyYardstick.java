import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * The Java yardstick for `rmq-inspect verify` (issue 20): what the broker itself does to check a commitlog,
 * record by record, the way CommitLog.checkMessageAndReturnSize(byteBuffer, checkCRC=true, readBody=true)
 * does it at recovery: TOTALSIZE and MAGICCODE, every fixed header field, born/store hosts (IPv4 or IPv6 by
 * the sysFlag bits), the body copied out and its CRC32 (java.util.zip.CRC32, & 0x7FFFFFFF) compared with
 * BODYCRC, the topic (1- or 2-byte length by magic code), the properties split into a map (KEYS, UNIQ_KEY,
 * TAGS and its tagsCode looked up), the length formula (calMsgLength) checked against TOTALSIZE. A segment
 * ends at the BLANK magic or at a zero TOTALSIZE (the preallocated tail).
 *
 * One thread, sequential, over a read-only MappedByteBuffer per segment. It checks nothing across files
 * (no consume queue, index file, checkpoint), and stops a segment at its first bad record as the broker does.
 *
 * Usage: java VerifyYardstick STORE_ROOT  (or a commitlog directory). Prints "messages N bytes B errors E".
 */
public final class VerifyYardstick {
    static final int MAGIC_V1 = 0xDAA320A7;
    static final int MAGIC_V2 = 0xDAA320AB;
    static final int BLANK = 0xCBD43194;
    static final int BORNHOST_V6 = 1 << 4;
    static final int STOREHOST_V6 = 1 << 5;

    static long messages;
    static long bytes;
    static long errors;
    static long tagsCodeSum; // consumed, so the JIT cannot drop the decode

    public static void main(String[] args) throws IOException {
        Path root = Paths.get(args.length > 0 ? args[0] : ".");
        Path dir = Files.isDirectory(root.resolve("commitlog")) ? root.resolve("commitlog") : root;
        List<Path> segments = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                if (Files.isRegularFile(p) && p.getFileName().toString().matches("\\d{20}")) {
                    segments.add(p);
                }
            }
        }
        Collections.sort(segments);
        for (Path p : segments) {
            long start = Long.parseLong(p.getFileName().toString());
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
                MappedByteBuffer buf = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
                buf.order(ByteOrder.BIG_ENDIAN);
                checkSegment(buf, start, p);
            }
        }
        System.out.println("messages " + messages + " bytes " + bytes + " errors " + errors
                + " tagsCodeSum " + tagsCodeSum);
    }

    static void checkSegment(ByteBuffer buf, long segmentStart, Path file) {
        int limit = buf.limit();
        while (buf.position() + 8 <= limit) {
            int pos = buf.position();
            int size = checkMessageAndReturnSize(buf, segmentStart);
            if (size > 0) {
                messages++;
                bytes += size;
                buf.position(pos + size);
            } else {
                if (size < 0) {
                    errors++;
                    System.err.println(file + " @" + pos + ": bad record");
                }
                return; // BLANK, zero tail or a bad record: the end of this segment
            }
        }
    }

    /** Record size if good; 0 at the end of the segment (BLANK or zero tail); -1 if bad. */
    static int checkMessageAndReturnSize(ByteBuffer bb, long segmentStart) {
        int pos = bb.position();
        int totalSize = bb.getInt();
        int magicCode = bb.getInt();
        if (magicCode == BLANK || totalSize == 0) {
            return 0;
        }
        if (magicCode != MAGIC_V1 && magicCode != MAGIC_V2) {
            return -1;
        }
        if (totalSize < 0 || pos + totalSize > bb.limit()) {
            return -1;
        }
        byte[] bytesContent = new byte[totalSize]; // as the broker does, one per record
        int bodyCRC = bb.getInt();
        int queueId = bb.getInt();
        int flag = bb.getInt();
        long queueOffset = bb.getLong();
        long physicOffset = bb.getLong();
        int sysFlag = bb.getInt();
        long bornTimeStamp = bb.getLong();
        int bornHostLen = (sysFlag & BORNHOST_V6) == 0 ? 4 : 16;
        bb.get(bytesContent, 0, bornHostLen + 4);
        long storeTimestamp = bb.getLong();
        int storeHostLen = (sysFlag & STOREHOST_V6) == 0 ? 4 : 16;
        bb.get(bytesContent, 0, storeHostLen + 4);
        int reconsumeTimes = bb.getInt();
        long preparedTransactionOffset = bb.getLong();
        int bodyLen = bb.getInt();
        if (bodyLen < 0 || bodyLen > totalSize) {
            return -1;
        }
        if (bodyLen > 0) {
            bb.get(bytesContent, 0, bodyLen);
            CRC32 crc32 = new CRC32();
            crc32.update(bytesContent, 0, bodyLen);
            int crc = (int) (crc32.getValue() & 0x7FFFFFFF);
            if (crc != bodyCRC) {
                return -1;
            }
        }
        int topicLen = magicCode == MAGIC_V2 ? bb.getShort() : bb.get();
        if (topicLen < 0) {
            return -1;
        }
        bb.get(bytesContent, 0, topicLen);
        String topic = new String(bytesContent, 0, topicLen, StandardCharsets.UTF_8);
        long tagsCode = 0;
        short propertiesLength = bb.getShort();
        if (propertiesLength > 0) {
            bb.get(bytesContent, 0, propertiesLength);
            String properties = new String(bytesContent, 0, propertiesLength, StandardCharsets.UTF_8);
            Map<String, String> map = string2messageProperties(properties);
            String keys = map.get("KEYS");
            String uniqKey = map.get("UNIQ_KEY");
            String tags = map.get("TAGS");
            if (tags != null && !tags.isEmpty()) {
                tagsCode = tags.hashCode();
            }
            if (keys != null) {
                tagsCode += keys.length();
            }
            if (uniqKey != null) {
                tagsCode += uniqKey.length();
            }
        }
        int topicLenSize = magicCode == MAGIC_V2 ? 2 : 1;
        int readLength = 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + bornHostLen + 4 + 8 + storeHostLen + 4 + 4 + 8
                + 4 + bodyLen + topicLenSize + topicLen + 2 + propertiesLength;
        if (totalSize != readLength) {
            return -1;
        }
        if (physicOffset != segmentStart + pos) {
            return -1;
        }
        tagsCodeSum += tagsCode + topic.length() + queueId + flag + queueOffset + bornTimeStamp + storeTimestamp
                + reconsumeTimes + preparedTransactionOffset;
        return totalSize;
    }

    /** MessageDecoder.string2messageProperties: name 0x01 value 0x02 pairs. */
    static Map<String, String> string2messageProperties(String properties) {
        Map<String, String> map = new HashMap<>();
        int len = properties.length();
        int index = 0;
        while (index < len) {
            int newIndex = properties.indexOf('\u0002', index);
            if (newIndex < 0) {
                newIndex = len;
            }
            if (newIndex - index >= 3) {
                int kvSep = properties.indexOf('\u0001', index);
                if (kvSep > index && kvSep < newIndex - 1) {
                    map.put(properties.substring(index, kvSep), properties.substring(kvSep + 1, newIndex));
                }
            }
            index = newIndex + 1;
        }
        return map;
    }
}
