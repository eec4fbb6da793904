/// Pieces of rule files that several tests build on, each written once. Each piece is whole YAML lines at
/// the indentation it has in a file (no final line feed), to be interpolated on a line of its own.
public enum RuleYAML {
    /// The `bank-debit` rule of the example in docs/RULES.md §2 (an entry of `rules:`, four lines).
    public static let bankDebit = """
          - name: bank-debit
            action: transaction
            subAction: transactionalFinance
            keywords: [debited, "a/c", "txn of"]
        """

    /// The `coupon` rule of the example in docs/RULES.md §2 (an entry of `rules:`, six lines): priority 10,
    /// vetoed by "order #".
    public static let coupon = """
          - name: coupon
            action: promotion
            subAction: promotionalCoupons
            priority: 10
            keywords: [coupon, "promo code"]
            unless: ["order #"]
        """

    /// The head of the `model:` section whose scores ModelTests works out by hand: `learned` at priority 10,
    /// junk against none, bias -0.5 and 0.5, and its first phrase, the word "free" (idf 2, weight 3 for junk
    /// and -3 for none). More phrases may follow it.
    public static let learnedModel = """
        model:
          name: learned
          priority: 10
          targets: [junk, none]
          bias: [-0.5, 0.5]
          phrases:
            - [word, "free", 2.0, 3.0, -3.0]
        """
}
