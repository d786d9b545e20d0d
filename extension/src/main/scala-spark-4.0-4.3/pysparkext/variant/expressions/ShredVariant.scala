package pysparkext.variant.expressions

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.UnaryExpression
import org.apache.spark.sql.types.VariantType

/**
 * What both layouts' `shred_variant` expressions share ([[ShredDraftVariant]], [[ShredSpecVariant]]):
 * the SQL name, and a VARIANT argument, checked at analysis with an error naming the column.
 */
trait ShredVariant extends UnaryExpression {
  override def prettyName: String = "shred_variant"

  override def checkInputDataTypes(): TypeCheckResult =
    if (child.dataType == VariantType) TypeCheckResult.TypeCheckSuccess
    else TypeCheckResult.TypeCheckFailure(
      s"shred_variant: column ${child.sql} is ${child.dataType.sql}, not VARIANT")
}
