package pysparkext

import org.scalatest.funsuite.AnyFunSuite

class ExtensionOrderSuite extends AnyFunSuite {
  private val own = classOf[PySparkExtSessionExtensions].getName
  private val delta = ExtensionOrder.DeltaExtensionClass

  test("Delta's extension listed ahead of this one is reported, naming both and the fix") {
    val message = ExtensionOrder.warning(s"com.example.Other, $delta ,$own").get
    assert(message.contains(s"lists $delta ahead of $own"))
    assert(message.contains(s"list $own first"))
  }

  test("this extension first, or no Delta, is not reported") {
    assert(ExtensionOrder.warning(s"$own,$delta").isEmpty)
    assert(ExtensionOrder.warning(s"org.apache.comet.CometSparkSessionExtensions,$own").isEmpty)
    assert(ExtensionOrder.warning(own).isEmpty)
    assert(ExtensionOrder.warning("").isEmpty)
  }
}
