/// One stage of the pipeline: a value in, a value out, nothing else read or written, so each
/// is tested alone and ``Generator`` is their composition.
package protocol PipelineStage: Sendable {
    associatedtype Input
    associatedtype Output

    func run(_ input: Input) throws -> Output
}
