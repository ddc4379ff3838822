public enum TracksPlaceholder {}
