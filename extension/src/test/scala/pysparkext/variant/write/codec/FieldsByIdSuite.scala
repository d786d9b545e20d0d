package pysparkext.variant.write.codec

import scala.collection.mutable.ArrayBuffer

import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.types.variant.{Variant, VariantUtil}

import pysparkext.testing.SparkShredding
import pysparkext.testing.VariantValues.{built, json}
import pysparkext.variant.codec.LittleEndian

/**
 * One object level of a shredding schema walked by dictionary id, against what Spark's `Variant`
 * reads and what Spark's `castShredded` splits: the schema's fields with their values, the other
 * fields for the residual, the missing ones; ids past the first tables; one key lookup per
 * generation, so rows that share a metadata share the lookups and a new metadata is read anew;
 * and a schema key twice in one object refused.
 */
class FieldsByIdSuite extends AnyFunSuite {
  /** Not in key order, so that schema positions and the object's (sorted) order differ. */
  private val names = Array("c", "a", "b")

  private def bytesAt(value: Array[Byte], pos: Int): Seq[Byte] =
    value.slice(pos, pos + VariantUtil.valueSize(value, pos)).toSeq

  /** One walk: the schema's fields met (key, value bytes), the others, and the missing, in order. */
  private final case class Walk(in: Seq[(String, Seq[Byte])], outside: Seq[(String, Seq[Byte])], missing: Seq[String])

  private def walk(ids: FieldsById, names: Array[String], value: Array[Byte], pos: Int, metadata: Array[Byte],
                   generation: Int): Walk = {
    val in = ArrayBuffer.empty[(Int, Int)]
    val missing = ArrayBuffer.empty[Int]
    ids.foreachField(value, pos, metadata, generation)((field, at) => {
      assert(missing.isEmpty, "a schema field reported after a missing one")
      in += field -> at
    }, field => missing += field)
    val outside = ids.outside
    Walk(in.toSeq.map { case (field, at) => names(field) -> bytesAt(value, at) },
      (0 until outside.count).map(i => ids.key(outside.ids(i)) -> bytesAt(value, outside.at(i))),
      missing.toSeq.map(names(_)))
  }

  /** The walk Spark's `Variant` implies: the fields in the object's order, split by the schema. */
  private def expected(v: Variant, names: Array[String]): Walk = {
    val fields = (0 until v.objectSize).map(v.getFieldAtIndex).map(f => f.key -> f.value.getValue.toSeq)
    val (in, outside) = fields.partition(f => names.contains(f._1))
    Walk(in, outside, names.toSeq.filterNot(n => fields.exists(_._1 == n)))
  }

  /** The positions of an array's elements in its bytes. */
  private def elements(value: Array[Byte]): Seq[Int] =
    VariantUtil.handleArray(value, 0, (size, offsetSize, offsetStart, dataStart) =>
      (0 until size).map(i => dataStart + LittleEndian.readUnsigned(value, offsetStart + offsetSize * i, offsetSize)))

  private val wide: Variant = json(new scala.util.Random(7).shuffle((0 until 300).toList)
    .map(i => f""""k$i%03d": $i""").mkString("{", ", ", "}"))

  test("index is each dictionary id's schema position, or -1 for a key the schema lacks, and key its key") {
    for (v <- Seq(json("{\"b\": 1, \"z\": 2, \"a\": 3, \"d\": 4}"), json("{\"a\": 0}"), json("{}"), wide)) {
      val ids = new FieldsById(names ++ Seq("k007", "k299", "k150"))
      // Highest ids first: the tables grow at once past their first sixteen.
      for (i <- (0 until v.objectSize).reverse) {
        val id = v.getDictionaryIdAtIndex(i)
        val key = v.getFieldAtIndex(i).key
        assert(ids.index(v.getMetadata, id, 1) == (names ++ Seq("k007", "k299", "k150")).indexOf(key), key)
        assert(ids.key(id) == key)
      }
    }
  }

  test("an id's key is read once per generation, and read anew in the next") {
    val ab = json("{\"a\": 1, \"b\": 2}").getMetadata // a is id 0
    val ba = json("{\"b\": 1, \"a\": 2}").getMetadata // b is id 0
    assert(VariantUtil.getMetadataKey(ab, 0) == "a" && VariantUtil.getMetadataKey(ba, 0) == "b")
    val ids = new FieldsById(Array("a"))
    assert(ids.index(ab, 0, 1) == 0 && ids.key(0) == "a")
    // The caller promises one metadata per generation, so another is not read within it.
    assert(ids.index(ba, 0, 1) == 0 && ids.key(0) == "a")
    assert(ids.index(ba, 0, 2) == -1 && ids.key(0) == "b")
    assert(ids.index(ba, 1, 2) == 0 && ids.key(1) == "a")
    assert(ids.index(ab, 0, 3) == 0)
  }

  /** Objects with the schema's fields all, some or none, with others, nested and wide. */
  private val objects: Seq[Variant] = Seq(json("{}"), json("{\"a\": 1}"),
    json("{\"a\": 1, \"b\": \"x\", \"c\": null}"),
    json("{\"x\": 1, \"a\": [1, 2], \"zz\": {\"a\": 5, \"c\": 6}, \"b\": {\"c\": 1, \"d\": [true]}}"),
    json("{\"c\": 3, \"B\": 1, \"a \": 2, \"\": 3}"), wide,
    json(s"""{"b": "${"s" * 70000}", "y": [${(1 to 1000).mkString(", ")}], "a": 1.5}"""),
    json((0 until 40).map(i => f""""o$i%02d": $i""").mkString("{\"a\": 0, ", ", ", ", \"c\": {}}")))

  test("foreachField gives the schema's fields with their values, the others outside, then the missing") {
    val ids = new FieldsById(names)
    for ((v, i) <- objects.zipWithIndex) {
      val got = walk(ids, names, v.getValue, 0, v.getMetadata, i + 1)
      assert(got == expected(v, names), v.toJson(java.time.ZoneOffset.UTC).take(100))
    }
  }

  test("foreachField splits an object as Spark's castShredded does: the same typed fields and residual") {
    val schema = SparkShredding.obj(names.map(_ -> SparkShredding.untyped).toIndexedSeq: _*)
    val ids = new FieldsById(names)
    for ((v, i) <- objects.zipWithIndex) {
      val got = walk(ids, names, v.getValue, 0, v.getMetadata, i + 1)
      val spark = SparkShredding.shred(v, schema)
      for ((name, field) <- names.zip(spark.fields)) {
        assert(Option(field.value).map(_.toSeq) == got.in.find(_._1 == name).map(_._2), s"$name of object $i")
      }
      val residual = Option(spark.value).map { bytes =>
        val r = new Variant(bytes, v.getMetadata)
        (0 until r.objectSize).map(r.getFieldAtIndex).map(f => f.key -> f.value.getValue.toSeq)
      }
      assert(residual.getOrElse(Nil) == got.outside, s"object $i")
      assert(residual.isEmpty == got.outside.isEmpty, s"object $i")
    }
  }

  test("rows that share a metadata share one generation; a new metadata starts the next") {
    val rows = Seq(
      json("""[{"a": 1, "x": 2, "b": 3, "y": 4}, {"b": 5}, {}, {"x": 6, "c": 7},""" +
        """ {"a": {"x": 1, "c": 2}}]"""),
      // Another dictionary: the same ids name other keys.
      json("[{\"y\": 1, \"c\": 2}, {\"x\": 3, \"b\": 4, \"a\": 5}, {\"y\": {\"a\": 1}}]"))
    val ids = new FieldsById(names)
    val inner = new FieldsById(Array("x"))
    var checked = 0
    for ((row, generation) <- rows.zipWithIndex.map { case (r, g) => (r, g + 1) }) {
      val value = row.getValue
      for ((pos, i) <- elements(value).zipWithIndex) {
        val element = row.getElementAtIndex(i)
        assert(walk(ids, names, value, pos, row.getMetadata, generation) == expected(element, names),
          s"row $generation[$i]")
        checked += 1
        // A nested object is walked at its own position with its own level, under the same metadata.
        for (f <- 0 until element.objectSize if element.getFieldAtIndex(f).value.getType == VariantUtil.Type.OBJECT) {
          val nested = element.getFieldAtIndex(f).value
          val at = value.indexOfSlice(nested.getValue, pos)
          assert(walk(inner, Array("x"), value, at, row.getMetadata, generation) == expected(nested, Array("x")))
          checked += 1
        }
      }
    }
    assert(checked == 10)
  }

  /** `{k: 1, k: 2}` with both fields under dictionary id `id`, which no builder writes. */
  private def twice(id: Int): Array[Byte] = {
    val one = built(_.appendLong(1)).getValue
    val two = built(_.appendLong(2)).getValue
    val data = one ++ two
    val header = ObjectHeader.size(2, id, data.length)
    val out = new Array[Byte](header)
    ObjectHeader.write(out, 0, Array(id, id), Array(0, one.length), 2, id, data.length)
    out ++ data
  }

  test("a schema key twice in one object is malformed; other keys twice are left to the residual's builder") {
    val metadata = json("{\"a\": 1, \"q\": 2}").getMetadata // a is id 0, q is id 1
    val ids = new FieldsById(Array("a"))
    val error = intercept[IllegalArgumentException](
      ids.foreachField(twice(0), 0, metadata, 1)((_, _) => (), _ => ()))
    assert(error.getMessage.contains("'a' appears twice"))
    val got = walk(ids, Array("a"), twice(1), 0, metadata, 1)
    val values = Seq(1L, 2L).map(n => "q" -> built(_.appendLong(n)).getValue.toSeq)
    assert(got == Walk(Nil, values, Seq("a")))
  }

  test("OutsideFields keeps every field added, past its first capacity, until cleared") {
    val outside = new OutsideFields
    for (i <- 0 until 20) outside.add(i, 100 + i)
    assert(outside.count == 20)
    assert(outside.ids.take(20).toSeq == (0 until 20) && outside.at.take(20).toSeq == (100 until 120))
    outside.clear()
    assert(outside.count == 0)
    outside.add(7, 8)
    assert(outside.count == 1 && outside.ids(0) == 7 && outside.at(0) == 8)
  }
}
