/// Transport module.
public enum Transport {}
