import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;

/**
 * Rewrites the classes of jars compiled for Java 5 (class-file version 49) as version 52 classes
 * with stack maps, in place, so that an AOT cache (or CDS archive) can hold them: HotSpot archives no
 * class older than version 50, and loads, parses and verifies such a class with the old inferencing
 * verifier at every start instead. The code is unchanged; the JDK's ClassFile API computes the stack
 * maps the newer verifier checks. Run with a JDK 25 source launcher:
 *
 * <pre>
 *   java images/ClassVersionUpgrade.java MODULE-DIR
 * </pre>
 *
 * Every jar in MODULE-DIR (a role's module path) holding such classes is rewritten; the others in
 * it give the class hierarchy the stack maps need. Classes of version 50 or later, and every other
 * entry, are copied as they are, with their times. Prints each rewritten jar and its count.
 */
public final class ClassVersionUpgrade {
    private static final int JAVA_8 = ClassFile.JAVA_8_VERSION;
    /** The oldest version HotSpot archives (Java 6). */
    private static final int ARCHIVABLE = ClassFile.JAVA_6_VERSION;

    public static void main(String[] args) throws IOException {
        if (args.length != 1 || !Files.isDirectory(Path.of(args[0]))) {
            System.err.println("usage: java ClassVersionUpgrade.java MODULE-DIR");
            System.exit(2);
        }
        List<Path> jars;
        try (var files = Files.list(Path.of(args[0]))) {
            jars = files.filter(file -> file.toString().endsWith(".jar")).sorted().toList();
        }
        URL[] path = new URL[jars.size()];
        for (int i = 0; i < path.length; i++) {
            path[i] = jars.get(i).toUri().toURL();
        }
        try (URLClassLoader loader = new URLClassLoader(path, ClassLoader.getPlatformClassLoader())) {
            ClassFile classFile = ClassFile.of(ClassFile.StackMapsOption.GENERATE_STACK_MAPS,
                    ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.defaultResolver()
                            .orElse(ClassHierarchyResolver.ofResourceParsing(loader))));
            for (Path jar : jars) {
                if (holdsOldClasses(jar)) {
                    System.out.printf("%s: %d classes rewritten as class-file version %d%n", jar.getFileName(),
                            rewrite(jar, classFile), JAVA_8);
                }
            }
        }
    }

    private static boolean holdsOldClasses(Path jar) throws IOException {
        try (JarFile in = new JarFile(jar.toFile())) {
            for (Enumeration<JarEntry> entries = in.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                if (isOldClass(entry, in)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isOldClass(JarEntry entry, JarFile jar) throws IOException {
        if (!entry.getName().endsWith(".class") || entry.getName().endsWith("module-info.class")) {
            return false;
        }
        try (InputStream read = jar.getInputStream(entry)) {
            byte[] header = read.readNBytes(8);
            return header.length == 8 && majorVersion(header) < ARCHIVABLE;
        }
    }

    /** Rewrites {@code jar} in place (through a file beside it); returns how many classes were. */
    private static int rewrite(Path jar, ClassFile classFile) throws IOException {
        Path rewritten = Files.createTempFile(jar.toAbsolutePath().getParent(), jar.getFileName().toString(), ".part");
        int count = 0;
        try (JarFile in = new JarFile(jar.toFile());
             OutputStream file = Files.newOutputStream(rewritten);
             JarOutputStream out = new JarOutputStream(file)) {
            for (Enumeration<JarEntry> entries = in.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                byte[] bytes;
                try (InputStream read = in.getInputStream(entry)) {
                    bytes = read.readAllBytes();
                }
                if (entry.getName().endsWith(".class") && !entry.getName().endsWith("module-info.class")
                        && majorVersion(bytes) < ARCHIVABLE) {
                    bytes = upgrade(classFile, bytes);
                    count++;
                }
                JarEntry copy = new JarEntry(entry.getName());
                FileTime time = entry.getLastModifiedTime();
                if (time != null) {
                    copy.setLastModifiedTime(time);
                }
                out.putNextEntry(copy);
                out.write(bytes);
                out.closeEntry();
            }
        }
        Files.move(rewritten, jar, StandardCopyOption.REPLACE_EXISTING);
        return count;
    }

    private static int majorVersion(byte[] classBytes) {
        return ((classBytes[6] & 0xff) << 8) | (classBytes[7] & 0xff);
    }

    private static byte[] upgrade(ClassFile classFile, byte[] bytes) {
        ClassModel model = classFile.parse(bytes);
        // The version first (it comes first in the model), then every method body written again,
        // which is what makes the ClassFile API compute its stack maps.
        ClassTransform version = (builder, element) -> builder.with(
                element instanceof ClassFileVersion ? ClassFileVersion.of(JAVA_8, 0) : element);
        return classFile.transformClass(model, version.andThen(
                ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL)));
    }
}
