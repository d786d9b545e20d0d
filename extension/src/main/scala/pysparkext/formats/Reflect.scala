package pysparkext.formats

import java.lang.reflect.{Method, Modifier}

/**
 * Calls of no-argument methods on a table format's objects (Delta's file format, Iceberg's scans
 * and tables, Comet's scan nodes). The extension reaches them by reflection so that its jar
 * compiles and runs without any of those products, and works across their releases; a caller
 * treats a failed call as "not this product's shape" and leaves the scan to the product.
 */
private[formats] object Reflect {
  /**
   * A public method by name. The class declaring it may itself be package-private (an
   * implementation behind a public interface), whose methods Java refuses to call from outside
   * until they are made accessible.
   */
  def call(target: AnyRef, method: String): AnyRef = {
    val m: Method = target.getClass.getMethod(method)
    if (!Modifier.isPublic(m.getDeclaringClass.getModifiers)) m.setAccessible(true)
    m.invoke(target)
  }

  /** A method by name, declared by the class of `target` or a superclass, whatever its access. */
  def callDeclared(target: AnyRef, method: String): AnyRef = {
    val m = Iterator.iterate[Class[_]](target.getClass)(_.getSuperclass).takeWhile(_ != null)
      .flatMap(_.getDeclaredMethods.find(m => m.getName == method && m.getParameterCount == 0))
      .next()
    m.setAccessible(true)
    m.invoke(target)
  }
}
