import MessageFilter
import TestSupport

@testable import BatchPipeline

extension TemporaryFolderTestCase {
    /// `Evaluator.run` with `ruleSet` and `options` over `corpus` written to `name` in this test's folder (with
    /// a time limit).
    func runEvaluator(
        over corpus: String, in name: String = "corpus.jsonl", ruleSet: RuleSet = EvaluateTests.ruleSet, options: EvaluationOptions
    ) throws -> EvaluationReport {
        let path = try write(name, corpus)
        return try Deadline.run("Evaluator.run over \(name)") { try Evaluator(ruleSet: ruleSet, options: options).run(inputs: [path]) }
    }
}
