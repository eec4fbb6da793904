// Placeholder: filled by the BatchPipeline issue.
import ZstdStream
import MessageFilter
public enum BatchPipelinePlaceholder {}
