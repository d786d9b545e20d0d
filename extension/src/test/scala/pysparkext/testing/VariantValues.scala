package pysparkext.testing

import java.math.{BigDecimal => JBigDecimal}

import org.apache.spark.types.variant.{Variant, VariantBuilder, VariantUtil}

import pysparkext.variant.codec.RawPrimitive

/** Variant values built by Spark's own `VariantBuilder`, and compared as the spec compares them. */
object VariantValues {
  def built(append: VariantBuilder => Unit): Variant = {
    val b = new VariantBuilder(false)
    append(b)
    b.result()
  }

  def json(s: String): Variant = VariantBuilder.parseJson(s, false)

  /**
   * Where `actual` differs from `expected`, or None: integers and decimals are one exact number
   * type compared by value (the spec lets a writer store a number in any width that holds it),
   * objects by key, everything else by its type and its bytes (so float and double stay distinct,
   * and `-0.0` is not `0.0`). Types Spark has no name for ([[RawPrimitive]]) are compared by bytes.
   */
  def difference(expected: Variant, actual: Variant, at: String = "$"): Option[String] = {
    import VariantUtil.Type._
    def differ(what: String) = Some(s"at $at: $what")
    if (RawPrimitive.typeId(expected.getValue) >= 0 || RawPrimitive.typeId(actual.getValue) >= 0) {
      if (expected.getValue.toSeq == actual.getValue.toSeq) None
      else differ(s"bytes ${expected.getValue.toSeq} != ${actual.getValue.toSeq}")
    } else (expected.getType, actual.getType) match {
      case (LONG | DECIMAL, LONG | DECIMAL) =>
        val (e, a) = (number(expected), number(actual))
        if (e.compareTo(a) == 0) None else differ(s"$e != $a")
      case (OBJECT, OBJECT) =>
        val keys = (v: Variant) => (0 until v.objectSize).map(v.getFieldAtIndex(_).key)
        if (keys(expected) != keys(actual)) differ(s"keys ${keys(expected)} != ${keys(actual)}")
        else keys(expected).iterator.flatMap(k =>
          difference(expected.getFieldByKey(k), actual.getFieldByKey(k), s"$at.$k")).nextOption()
      case (ARRAY, ARRAY) =>
        if (expected.arraySize != actual.arraySize) differ(s"${expected.arraySize} != ${actual.arraySize} elements")
        else (0 until expected.arraySize).iterator.flatMap(i =>
          difference(expected.getElementAtIndex(i), actual.getElementAtIndex(i), s"$at[$i]")).nextOption()
      case (STRING, STRING) =>
        if (expected.getString == actual.getString) None
        else differ(s"'${expected.getString}' != '${actual.getString}'")
      case (e, a) if e == a =>
        if (expected.getValue.toSeq == actual.getValue.toSeq) None
        else differ(s"$e bytes ${expected.getValue.toSeq} != ${actual.getValue.toSeq}")
      case (e, a) => differ(s"type $e != $a")
    }
  }

  private def number(v: Variant): JBigDecimal =
    if (v.getType == VariantUtil.Type.LONG) JBigDecimal.valueOf(v.getLong) else v.getDecimal
}
