package pysparkext.codegen

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.DataType

/**
 * Code generation for expressions whose work is a Scala method over their children's values:
 * the children are generated as usual, boxed into an array, and the method is called on the
 * expression object. Unlike CodegenFallback this keeps the operator in whole-stage code.
 */
object MethodCallCodegen {
  def callWithChildren(
      ctx: CodegenContext,
      ev: ExprCode,
      target: Expression,
      method: String,
      children: Seq[Expression],
      dataType: DataType): ExprCode = {
    val ref = ctx.addReferenceObj("methodCallExpr", target)
    val values = ctx.freshName("values")
    val result = ctx.freshName("result")
    val evals = children.zipWithIndex.map { case (c, i) =>
      val e = c.genCode(ctx)
      s"""${e.code}
         |$values[$i] = ${e.isNull} ? null : (Object) ${e.value};""".stripMargin
    }.mkString("\n")
    val javaType = CodeGenerator.javaType(dataType)
    ev.copy(code = code"""
      |Object[] $values = new Object[${children.length}];
      |$evals
      |Object $result = $ref.$method($values);
      |boolean ${ev.isNull} = $result == null;
      |$javaType ${ev.value} = ${CodeGenerator.defaultValue(dataType)};
      |if (!${ev.isNull}) {
      |  ${ev.value} = (${CodeGenerator.boxedType(dataType)}) $result;
      |}""".stripMargin)
  }
}
